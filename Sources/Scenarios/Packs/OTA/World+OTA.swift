import Artifacts
import Devices
import Foundation
import MockStack
import OTA
import QualifyCore
import QualifyCrypto

/// The deploy pipeline and the attacker of the OTA scenarios, acting on the world's bucket.
extension World {
  /// How the app orders releases (its profile's `ota.ordering`).
  var ordering: ReleaseOrdering {
    ReleaseOrdering(rawValue: configuration.build.otaOrdering) ?? .count
  }

  /// The concrete version of an expression: `builtin`, `builtin+N`, `builtin-N` (counts
  /// relative to the build's stamped builtin, a fresh seeded commit each), or a literal. An app
  /// whose releases are ordered by sequence publishes bare commit ids: `builtin+N` is then a
  /// fresh 8-character commit, ordered by the publish that writes it.
  func version(_ expression: String) -> String {
    if let known = versions[expression] { return known }
    let builtin = configuration.stampedBuiltin
    guard expression.hasPrefix("builtin") else { return expression }
    // Sequence-ordered releases are bare commits whatever the builtin was stamped with (a store
    // build from the hybrid era still updates to them); `builtin-N` on a count-stamped
    // builtin is a hybrid-era id of an older build, the one the native floor keeps out.
    if expression != "builtin", ordering == .sequence,
      !(expression.hasPrefix("builtin-") && BundleVersion(builtin).count != nil)
    {
      let resolved = String(environment.random.hex(byteCount: 4).prefix(8))
      versions[expression] = resolved
      return resolved
    }
    if expression.hasSuffix("'") {
      // `builtin+2'`: the count of `builtin+2`, another commit (two branches that minted the
      // same count).
      let base = BundleVersion(version(String(expression.dropLast())))
      let resolved =
        "\(base.count ?? 1000)-\(environment.random.hex(byteCount: 4).prefix(7))"
      versions[expression] = resolved
      return resolved
    }
    if expression == "builtin" { return builtin }
    if ["builtin+digit", "builtin-digit", "builtin+digit-1"].contains(expression) {
      // Across a digit boundary: the smallest count with one digit more than the builtin's
      // (and the one just under it, all nines), or the largest with one digit fewer — where a
      // text comparison gets the order wrong.
      let digits = String(BundleVersion(builtin).count ?? 1000).count
      let power = (1..<digits).reduce(1) { total, _ in total * 10 }
      let count =
        expression == "builtin-digit"
        ? max(power - 1, 0) : expression == "builtin+digit" ? power * 10 : power * 10 - 1
      let resolved = "\(count)-\(environment.random.hex(byteCount: 4).prefix(7))"
      versions[expression] = resolved
      return resolved
    }
    // Clamped: an offset is a handful of releases, never an overflow.
    let offset = min(
      max(
        Int(expression.dropFirst("builtin".count).replacingOccurrences(of: "+", with: "")) ?? 1,
        -1_000_000), 1_000_000)
    let base = BundleVersion(builtin).count ?? 1000
    let resolved = "\(base + offset)-\(environment.random.hex(byteCount: 4).prefix(7))"
    versions[expression] = resolved
    return resolved
  }

  /// The channel the app follows (`MOBILE_OTA_CHANNEL`), or the channel of its manifest URL.
  var otaChannel: String {
    if let channel = configuration.build.frontend.otaChannel?.value { return channel }
    let url = configuration.build.backend?.otaManifestURL ?? ""
    if let range = url.range(of: "channels/") {
      return String(url[range.upperBound...].prefix { $0 != "/" })
    }
    return configuration.channel.rawValue
  }

  /// A channel name, with `other` meaning a channel the app does not follow.
  func channel(_ name: String?) -> String {
    guard let name else { return otaChannel }
    guard name == "other" else { return name }
    return otaChannel == "staging" ? "prod" : "staging"
  }

  /// The bucket the pipeline publishes to, through its port.
  private func bucket() throws -> BucketStore {
    guard let bucket = ports.bucket else {
      throw ScenarioRuntimeError(
        "the backend serves no MOBILE_OTA_MANIFEST_URL: the app has no OTA bucket")
    }
    return bucket
  }

  /// The bundle live on the app's channel: against a real channel (`--stack`), what it serves
  /// now, untouched; in the embedded stack, `builtin+1` published by the pipeline stands in.
  func liveBundle() throws -> Outcome {
    if let live = try embeddedStack().realOTAChannel {
      note("ci", "the live channel is real: \(live.manifestURL), as published")
      return Outcome("the live channel at \(live.manifestURL)")
    }
    return try publish(
      version: "builtin+1", channel: nil, content: "live", force: false, crashing: false,
      withoutChecksum: false)
  }

  func publish(
    version expression: String, channel: String?, content: String?, force: Bool, crashing: Bool,
    withoutChecksum: Bool, bareChecksum: Bool = false, escaping: Bool = false,
    files: ZipArchive? = nil
  )
    throws -> Outcome
  {
    let bucket = try bucket()
    let version = version(expression)
    let channel = self.channel(channel)
    let label = content ?? expression
    var html = "<!doctype html><html><head><title>\(label)</title>"
    if crashing { html += "<!-- \(OTAUpdater.crashMarker) -->" }
    html +=
      "</head><body><div id=\"root\"></div><script src=\"assets/app.js\"></script></body></html>"
    var zip =
      files
      ?? ZipArchive(entries: [
        .init(name: "index.html", data: Array(html.utf8)),
        .init(name: "assets/app.js", data: Array("/* \(label) */".utf8)),
      ])
    if escaping {
      zip.entries.append(.init(name: "../escape.js", data: Array("/* outside */".utf8)))
    }
    let random = environment.random
    let publisher = Publisher(store: bucket, privateKey: otaSigningKey) { random.bytes($0) }
    do {
      let result = try publisher.publish(
        zip: zip, channel: channel, version: version, force: force || configuration.publishForces,
        withoutChecksum: withoutChecksum, bareChecksum: bareChecksum, ordering: ordering,
        keepsSequence: configuration.publishKeepsSequence)
      manifests["\(channel)/\(version)"] = result.manifest
      note(
        "ci",
        "published \(version) on \(channel)\(crashing ? " (a bundle that crashes on boot)" : "")")
      var outcome = Outcome("ci published \(version) on \(channel)")
      outcome.published = version
      return outcome
    } catch let refusal as Publisher.Refusal {
      note("ci", "publish refused: \(refusal.description)")
      return Outcome(
        "ci publishes \(version)",
        problem: .init(kind: .refused, message: refusal.description, reason: .publishRefused))
    }
  }

  func substitute(version expression: String, channel: String?) throws -> Outcome {
    let bucket = try bucket()
    let version = version(expression)
    let channel = self.channel(channel)
    guard let manifestData = try bucket.get(Manifest.key(channel: channel)),
      let manifest = try? Manifest.parse(manifestData, source: "manifest"),
      let (iv, encryptedKey) = manifest.sessionKey.flatMap(CapgoBundle.sessionKeyParts)
    else {
      throw ScenarioRuntimeError("nothing published on \(channel) to substitute")
    }
    // The public key ships in every app: the AES key is anyone's to recover.
    let publicKey = try Key.publicKey(pem: try otaSigningKey.pkcs1PublicPEM())
    let aesKey = try publicKey.publicDecrypt(encryptedKey)
    let evil = ZipArchive(entries: [
      .init(
        name: "index.html",
        data: Array("<title>substituted</title><script>exfiltrate()</script>".utf8))
    ])
    let encrypted = try AES128CBC.encrypt(evil.bytes, key: aesKey, iv: iv)
    try bucket.put(
      Manifest.bundleKey(channel: channel, version: version), encrypted,
      contentType: "application/zip")
    note(
      "attacker",
      "replaced \(Manifest.bundleKey(channel: channel, version: version)) with their own zip under the same session key"
    )
    return Outcome("the attacker substituted \(version)'s zip")
  }

  /// `keepingSequence`: the pointer is rewritten under the channel's current sequence, as a
  /// pipeline that does not bump it would write it (a replayed pointer, not a new release).
  func pointManifest(at expression: String, channel: String?, keepingSequence: Bool = false)
    throws -> Outcome
  {
    let bucket = try bucket()
    let version = version(expression)
    let channel = self.channel(channel)
    guard
      let current = try bucket.get(Manifest.key(channel: channel)).flatMap({
        try? Manifest.parse($0, source: "manifest")
      })
    else {
      throw ScenarioRuntimeError("nothing published on \(channel)")
    }
    guard let previous = manifests["\(channel)/\(version)"] else {
      throw ScenarioRuntimeError("\(version) was never published on \(channel) in this scenario")
    }
    var replayed = previous
    // The pipeline's latest sequence on this channel, whatever the bucket serves now.
    let latest = manifests.filter { $0.key.hasPrefix("\(channel)/") }.compactMap(\.value.sequence)
      .max()
    if keepingSequence { replayed.sequence = latest ?? current.sequence }
    try bucket.put(Manifest.key(channel: channel), replayed.json, contentType: "application/json")
    let under =
      keepingSequence
      ? " under the channel's latest sequence \(replayed.sequence.map(Manifest.text) ?? "none")"
      : ""
    note(
      "bucket", "the \(channel) manifest points back at \(version)\(under) (was \(current.version))"
    )
    return Outcome("the \(channel) manifest points at \(version)\(under)")
  }
}
