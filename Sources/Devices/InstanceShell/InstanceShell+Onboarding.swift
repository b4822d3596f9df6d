import Artifacts
import Foundation
import HTTP
import QualifyCore

// Onboarding and the instance manager: the local page's form (normalised, checked against
// `/api/instance` as the app's read code decides, then added past its gate), opening and
// removing a listed instance, and where the list is kept.
extension InstanceShell {
  /// The user types `input` and submits: normalized, checked against the instance, added
  /// and loaded (resuming a deep link's path).
  public func add(_ input: String) {
    addRefusal = nil
    lastAcceptance = nil
    guard case .onboarding = screen else {
      note("no onboarding page to type \(input) in")
      return
    }
    guard let origin = normalize(input) else {
      addRefusal = "Enter a valid URL, e.g. my.sovereign.example"
      note("add refused: \(input) is not an instance URL this build accepts")
      return
    }
    let title = check(origin)
    // The submit handler's own early returns, as its code writes them.
    // (A failed check stops it in every handler: the refusal below says where it checked.)
    if title != nil, let gate = build.instanceShell?.code.addGate,
      let read = gate.value.value, read.adds(origin: origin, info: title) != true
    {
      addRefusal =
        "onboarding stopped before adding \(origin), as its submit handler's test says (\(gate.origin))"
      note("add refused: \(addRefusal ?? "")")
      return
    }
    guard let title else {
      let endpoint = build.instanceShell?.code.validationEndpoint
      addRefusal =
        "Could not reach a Sovereign instance at \(origin)."
        + (endpoint.map { " (checked at \($0.value), as \($0.origin) says)" } ?? "")
      note("add refused: \(addRefusal ?? "")")
      return
    }
    var list = instances
    if !list.contains(where: { $0.url == origin }) {
      list.append(
        Instance(
          url: origin, label: title, addedAt: environment.clock.now.timeIntervalSince1970 * 1000))
    }
    store(list)
    preferences[Self.activeKey] = origin
    note("added \(title) (\(origin)); active")
    if let loads = build.instanceShell?.code.addLoadsInstance, !loads.value {
      // The handler stops once the instance is stored: the user stays on the local page.
      leftBecause = "the submit handler at \(loads.origin) adds \(origin) and loads nothing"
      note(leftBecause ?? "")
      return
    }
    let path = behaviours.dropsPendingPath ? "" : (pendingPath ?? "")
    if !behaviours.keepsPendingPath { pendingPath = nil }
    loadInstance(origin + (path == "/" ? "" : path))
  }

  /// The prefilled URL field, submitted as it is.
  public var prefill: String? {
    if case .onboarding(let prefill) = screen { return prefill }
    return nil
  }

  /// Taps an instance of the manager: active first, then loaded.
  public func open(_ url: String) {
    guard case .onboarding = screen, instances.contains(where: { $0.url == url }) else {
      note("no listed instance \(url) to open")
      return
    }
    if behaviours.opensWithoutSavingActive {
      loadInstance(url)
    } else if behaviours.switchesBeforeSavingActive {
      loadInstance(url)
      preferences[Self.activeKey] = url
    } else {
      preferences[Self.activeKey] = url
      loadInstance(url)
    }
  }

  /// ✕ on a listed instance: removed (and no longer active); the manager re-renders. Nil when
  /// it was tapped; why not when the manager draws nothing to tap (its button is read with no
  /// text, child or generated content), and nothing changes.
  @discardableResult
  public func remove(_ url: String) -> String? {
    if let label = build.instanceShell?.code.managerRemoveLabelled, !label.value {
      let why = "\(label.origin): \(label.derivation.first ?? "the remove button shows nothing")"
      note("no ✕ to tap for \(url): \(why)")
      return why
    }
    store(instances.filter { $0.url != url })
    // The web code's own test decides which removal clears the active instance.
    switch build.instanceShell?.code.managerRemove?.value ?? .whenRemoved {
    case .whenRemoved: if activeURL == url { preferences[Self.activeKey] = nil }
    case .whenOther: if activeURL != url { preferences[Self.activeKey] = nil }
    case .never: break
    }
    note("removed \(url)")
    if case .onboarding = screen { renderOnboarding(prefill: "", sameDocument: true) }
    return nil
  }

  private func store(_ list: [Instance]) {
    let data = (try? JSONEncoder().encode(list)).map { String(decoding: $0, as: UTF8.self) } ?? "[]"
    if behaviours.instancesInWebViewStorage {
      webStorage[Self.instancesKey] = data
    } else {
      preferences[Self.instancesKey] = data
    }
  }

  /// `normalizeInstanceUrl`: a bare host gets https://; an explicit http:// in the builds its
  /// code lets it through (read; a dev build only when it was not). The transport policy
  /// then decides whether the check and the page can reach it.
  func normalize(_ input: String) -> String? {
    let trimmed = input.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty else { return nil }
    let withScheme = trimmed.contains("://") ? trimmed : "https://" + trimmed
    guard let origin = Origin(url: withScheme), !origin.host.isEmpty else { return nil }
    let read = build.instanceShell?.code.normalizerAcceptsHTTP?.value
    let allowsHTTP =
      (build.channel.isRelease ? read?.release ?? false : read?.dev ?? true)
      || behaviours.acceptsHTTPInstances
    guard origin.isSecure || allowsHTTP else { return nil }
    return origin.description
  }

  /// `checkInstance`: `GET /api/instance` through CapacitorHttp; the instance's name, nil when
  /// it is not one (or cannot be reached).
  func check(_ origin: String) -> String? {
    // The path the web code fetches: the instance's own server answers whatever it is.
    let path =
      behaviours.validatesAgainstAdminHealth
      ? "/api/admin/health" : build.instanceShell?.code.validationEndpoint?.value ?? "/api/instance"
    guard case .sent(let exchange) = native.send(ClientRequest(url: origin + path)),
      let response = exchange.response
    else { return nil }
    // The app's own parseInstanceResponse, as read; `response.json()` throws on a body that
    // is not JSON, and checkInstance answers null.
    if !behaviours.validatesAgainstAdminHealth,
      let check = build.instanceShell?.code.responseCheck, let read = check.value.value
    {
      guard let body = response.jsonObject,
        let name = read.name(status: response.status, body: body)
      else { return nil }
      let answer = String(decoding: response.body.prefix(200), as: UTF8.self)
      lastAcceptance =
        "parseInstanceResponse (\(check.location.map { "\($0)" } ?? "the web code")) accepted \(origin)'s \(response.status) \(answer)"
      return name
    }
    guard response.status == 200, let body = response.jsonObject as? [String: Any] else {
      return nil
    }
    if behaviours.validatesAgainstAdminHealth {
      return body["status"] as? String == "ok" ? Origin(url: origin)?.host : nil
    }
    guard body["status"] as? String == "ok", body["product"] as? String == "sovereign",
      let title = body["instanceName"] as? String, body["platformVersion"] is String
    else { return nil }
    return title
  }
}
