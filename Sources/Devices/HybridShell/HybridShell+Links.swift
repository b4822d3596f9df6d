import Artifacts
import Foundation
import HTTP
import QualifyCore

extension HybridShell {
  // MARK: Links

  /// At install the OS fetches each claimed host's association file over HTTPS, following
  /// no redirect (Apple's swcd, Android's intent-filter verifier).
  func verifyLinks() {
    guard let hybrid = build.hybrid else { return }
    switch build.platform {
    case .ios:
      for entry in hybrid.associatedDomains where entry.value.lowercased().hasPrefix("applinks:") {
        let host = String(
          entry.value.dropFirst("applinks:".count).split(separator: "?").first ?? "")
        let appID = "\(hybrid.teamId?.value ?? "").\(build.appId.value)"
        verify(host: host, path: AssociationFiles.applePath) { text in
          AssociationFiles.appleProblems(text, appID: appID, paths: []).first.map(\.description)
        }
      }
    case .android:
      let hosts = Set(hybrid.linkFilters.filter(\.autoVerify).flatMap(\.hosts))
      for host in hosts.sorted() {
        let fingerprint = hybrid.signingCertificateSHA256?.value ?? ""
        verify(host: host, path: AssociationFiles.androidPath) { text in
          AssociationFiles.androidProblems(
            text, package: self.build.appId.value, fingerprint: fingerprint,
            debugFingerprint: hybrid.debugCertificateSHA256
          ).first.map(\.description)
        }
      }
    }
  }

  private func verify(host: String, path: String, judge: (String) -> String?) {
    let url = "https://\(host)\(path)"
    let problem: String?
    switch system.send(ClientRequest(url: url, maxResponseBytes: 128 * 1024)) {
    case .refused(let reason):
      problem = "refused: \(reason)"
    case .sent(let exchange):
      if let error = exchange.error {
        problem = "\(url) unreachable: \(error)"
      } else if let response = exchange.response, response.status != 200 {
        let location = response.headers["Location"].map { " to \($0)" } ?? ""
        problem =
          (300..<400).contains(response.status)
          ? "\(url) answers \(response.status)\(location): redirects are not followed"
          : "\(url) answers \(response.status)"
      } else if let response = exchange.response {
        let text = response.bodyText
        if build.platform == .android,
          !(response.headers["Content-Type"] ?? "").lowercased().hasPrefix("application/json")
        {
          problem =
            "\(url) is served as \(response.headers["Content-Type"] ?? "no type"), not application/json"
        } else {
          problem = judge(text)
          if problem == nil { verifiedText[host] = text }
        }
      } else {
        problem = "\(url): no answer"
      }
    }
    verification[host] = .some(problem)
    environment.decision(
      source,
      "\(build.platform == .ios ? "swcd" : "the intent-filter verifier") on \(host): \(problem.map { "not verified — \($0)" } ?? "verified")"
    )
  }

  /// The user taps `url` in another app (a mail, a chat): the OS opens the app on it when the
  /// app claims the link and the OS verified its host, else the browser.
  public func openLink(_ url: String) {
    guard let components = URLComponents(string: url), let host = components.host?.lowercased()
    else { return }
    let path = components.path.isEmpty ? "/" : components.path
    if !installed {
      installed = true
      verifyLinks()
      obtainToken()
    }
    let verified = (verification[host] ?? .some("not claimed")) == nil
    let takes: Bool
    switch build.platform {
    case .ios:
      let appID = "\(build.hybrid?.teamId?.value ?? "").\(build.appId.value)"
      takes =
        verified
        && AssociationFiles.appleOpens(verifiedText[host] ?? "", appID: appID, path: path)
    case .android:
      takes =
        verified
        && (build.hybrid?.linkFilters ?? []).contains {
          $0.autoVerify && $0.isBrowsable && $0.takes(host: host, path: path)
        }
    }
    guard takes else {
      screen = .browser(url)
      html = ""
      environment.decision(source, "\(url) opened in the browser: the app does not take it")
      return
    }
    environment.decision(source, "\(url) opened the app")
    let routes = code.opensLinks?.value ?? true
    linkNotRouted = nil
    if !routes, let fact = code.opensLinks {
      linkNotRouted = Self.cause(fact, "the app does not route the link")
    }
    if isRunning {
      if let running = code.routesRunningLinks, !running.value {
        linkNotRouted = Self.cause(running, "the link does not reach the running app")
        environment.decision(
          source, "\(linkNotRouted ?? ""): it comes forward on the page it showed")
        return
      }
      guard routes else { return }
      if let keeps = code.linksKeepWebView, !keeps.value {
        webView += 1
        environment.decision(
          source,
          "a new WebView for the link (\(keeps.origin)): what the running page held is gone")
      }
      load(url)
    } else {
      launch(at: routes ? url : nil)
    }
  }

  /// Why a link the app took was not loaded, with where the code says so.
  static func cause(_ fact: Sourced<Bool>, _ fallback: String) -> String {
    "\(fact.derivation.first ?? fallback) — \(fact.origin)"
  }

  /// The user starts a message on the page shown and leaves it unsent: it lives in that
  /// WebView's page.
  public func writeDraft() { draftIn = webView }

  /// The draft written earlier is in the WebView that shows the page now.
  public var draftKept: Bool { draftIn != nil && draftIn == webView && isRunning }
}
