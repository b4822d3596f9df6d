import Foundation
import HTTP
import OTA
import QualifyCore
import QualifyCrypto

/// `qualify ota keygen|publish|verify`: the OTA bundle tooling, Capgo v2 compatible.
struct OTACommand {
  static let publishOptions: [OptionSpec] = [
    .value("dir", "DIST", "The built web bundle (index.html at its root)."),
    .value("channel", "C", "The channel to publish on (dev, staging, prod, …)."),
    .value("version", "V", "The bundle version, <count>-<sha> (e.g. 1234-a1b2c3d)."),
    .value(
      "bucket", "URL|DIR", "Where the channel folders live: an http(s) bucket URL or a directory."),
    .value("private-key", "B64", "The signing key (default: $MOBILE_OTA_SIGNING_PRIVATE_KEY_B64)."),
    .value(
      "public-base-url", "URL",
      "The device-reachable base URL written into the manifest (MOBILE_OTA_PUBLIC_BASE_URL)."),
    .value("ca", "FILE", "Trust this CA certificate for an https bucket (e.g. qualify serve's)."),
    .value(
      "connect-to", "HOST:PORT:127.0.0.1:PORT2",
      "Reach HOST:PORT on a loopback port instead (repeatable).", repeatable: true),
    .flag("force", "Publish even when the version does not order above the channel's manifest."),
    .value(
      "ordering", "count|sequence",
      "How the channel's devices order releases (the app's qualify.json ota.ordering; default count): by sequence, a bare commit id publishes without --force; either way the manifest's sequence is bumped."
    ),
    .flag("help", "Show this help."),
  ]

  static let verifyOptions: [OptionSpec] = [
    .value("manifest", "URL|FILE", "The channel's manifest.json."),
    .value(
      "public-key", "B64",
      "The public key the app bakes in (default: $MOBILE_OTA_SIGNING_PUBLIC_KEY_B64)."),
    .value(
      "current", "VERSION", "The bundle a device runs now: say whether it would apply the manifest."
    ),
    .value(
      "ordering", "count|sequence",
      "How the app orders releases (its qualify.json ota.ordering; default count): with --current, the rule the decision follows."
    ),
    .value(
      "applied-sequence", "N",
      "With --ordering sequence: the highest sequence the device staged (its ota-applied-sequence); none means trust on first use."
    ),
    .value(
      "builtin", "VERSION",
      "The device's builtin bundle (default: --current): the native floor for <count>-<sha> ids."),
    .value("ca", "FILE", "Trust this CA certificate (default: the system's)."),
    .value(
      "connect-to", "HOST:PORT:HOST2:PORT2", "Reach HOST:PORT at HOST2:PORT2 instead (repeatable).",
      repeatable: true),
    .value(
      "max-bundle-size", "SIZE",
      "Refuse a bundle bigger than SIZE (bytes, or with K, M or G; default 100M). The manifest is bounded at 1M."
    ),
    .flag("help", "Show this help."),
  ]

  let arguments: [String]

  func execute() throws -> ExitCode {
    let out = Terminal.standardOutput
    guard let sub = arguments.first, !sub.hasPrefix("-") else {
      out.write(
        helpText(
          usage: "qualify ota keygen | publish | verify [options]",
          summary: """
            OTA bundle tooling, wire-compatible with Capgo v2 (AES-128-CBC bundles, RSA-signed \
            session key and checksum). keygen prints a signing key pair as base64 PKCS#1 PEMs; \
            publish zips, encrypts and uploads a bundle and writes the channel's manifest, \
            refusing a downgrade; verify checks a channel's manifest and bundle the way a \
            device does. Each takes --help.
            """, options: []))
      return arguments.contains("--help") || arguments.contains("-h") ? .qualified : .badInput
    }
    let rest = Array(arguments.dropFirst())
    switch sub {
    case "keygen": return try keygen(rest)
    case "publish": return try publish(rest)
    case "verify": return try verify(rest)
    default:
      throw InputError(
        "unknown ota command '\(sub)'",
        hint: Suggestions.closest(to: sub, among: ["keygen", "publish", "verify"]).map {
          "did you mean 'qualify ota \($0)'?"
        })
    }
  }

  private func keygen(_ arguments: [String]) throws -> ExitCode {
    let parsed = try ParsedOptions.parse(
      arguments, [.flag("help", "Show this help.")], command: "qualify ota keygen")
    if parsed.has("help") {
      Terminal.standardOutput.write(
        helpText(
          usage: "qualify ota keygen",
          summary:
            "Generates an RSA-2048 signing key pair and prints both halves as base64 PKCS#1 PEMs on stdout, ready for an env file or a CI secret store; guidance goes to stderr.",
          options: []))
      return .qualified
    }
    let key = try Key.generateRSA(bits: 2048)
    Terminal.standardOutput.line(
      "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64=\(Base64PEM.encode(try key.pkcs1PublicPEM()))")
    Terminal.standardOutput.line(
      "MOBILE_OTA_SIGNING_PRIVATE_KEY_B64=\(Base64PEM.encode(try key.pkcs1PrivatePEM()))")
    let err = Terminal.standardError
    err.line(
      "The public half goes into the app's build env (baked into capacitor.config as CapacitorUpdater.publicKey)."
    )
    err.line(
      "The private half signs bundles at publish time: keep it in the CI secret store, never commit it."
    )
    err.line("Rotating the pair needs a new store build: the public key is baked in.")
    return .qualified
  }

  private func publish(_ arguments: [String]) throws -> ExitCode {
    let parsed = try ParsedOptions.parse(
      arguments, OTACommand.publishOptions, command: "qualify ota publish")
    if parsed.has("help") {
      Terminal.standardOutput.write(
        helpText(
          usage:
            "qualify ota publish --dir DIST --channel C --version V --bucket URL|DIR [--ordering count|sequence] [--force]",
          summary:
            "Zips DIST (index.html at the root), encrypts it (Capgo v2), uploads channels/C/bundles/V.zip and writes channels/C/manifest.json with the channel's sequence plus one. With --ordering count (the default, seed 000's <count>-<sha> ids) it refuses a version that does not order above the channel's current manifest unless --force; with --ordering sequence (bare commit ids, ordered by the manifest's sequence) any id publishes, and only a <count>-<sha> id over a <count>-<sha> channel is still held to its count. Exit 0 published, 1 refused by the guard, 2 bad input, 4 the bucket cannot be reached or written.",
          options: OTACommand.publishOptions))
      return .qualified
    }
    func required(_ name: String) throws -> String {
      guard let value = parsed.value(name), !value.isEmpty else {
        throw InputError(
          "qualify ota publish needs --\(name)", hint: "see: qualify ota publish --help")
      }
      return value
    }
    let dir = try required("dir")
    let orderingName = parsed.value("ordering") ?? "count"
    guard let ordering = ReleaseOrdering(rawValue: orderingName) else {
      throw InputError(
        "--ordering must be count or sequence, got '\(orderingName)'",
        hint: "the app's qualify.json ota.ordering says which")
    }
    let channel = try required("channel")
    let version = try required("version")
    let bucket = try required("bucket")
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw InputError("--dir \(dir) is not a directory")
    }
    guard
      let keyText = parsed.value("private-key")
        ?? ProcessInfo.processInfo.environment["MOBILE_OTA_SIGNING_PRIVATE_KEY_B64"]
    else {
      throw InputError(
        "no signing key",
        hint:
          "pass --private-key or set MOBILE_OTA_SIGNING_PRIVATE_KEY_B64 (qualify ota keygen makes one)"
      )
    }
    let privateKey = try CapgoBundle.key(base64: keyText, isPrivate: true)
    let store: BucketStore
    if bucket.hasPrefix("http://") || bucket.hasPrefix("https://") {
      store = HTTPBucket(
        base: bucket,
        client: try client(ca: parsed.value("ca"), connectTo: parsed.all("connect-to")))
    } else {
      store = DirectoryBucket(
        root: URL(fileURLWithPath: bucket), publicBase: parsed.value("public-base-url"))
    }
    let zip = try ZipArchive.zipping(directory: URL(fileURLWithPath: dir))
    let publisher = Publisher(store: store, privateKey: privateKey) { try SecureRandom.bytes($0) }
    do {
      let result = try publisher.publish(
        zip: zip, channel: channel, version: version, force: parsed.has("force"),
        ordering: ordering)
      let out = Terminal.standardOutput
      out.line(
        "published \(version) on \(channel): \(result.bundleKey) (\(zip.entries.count) files), sequence \(result.manifest.sequence.map(Manifest.text) ?? "none")"
      )
      out.line("manifest: \(Manifest.key(channel: channel)) → \(result.manifest.url)")
      if let previous = result.previous { out.line("previous version: \(previous)") }
      return .qualified
    } catch let refusal as Publisher.Refusal {
      Terminal.standardError.line(
        Terminal.standardError.style("refused:", .red, .bold) + " \(refusal.description)")
      return .notQualified
    }
  }

  static let verifyHelp =
    helpText(
      usage:
        "qualify ota verify --manifest URL|FILE --public-key B64 [--current VERSION [--ordering count|sequence] [--applied-sequence N] [--builtin VERSION]]",
      summary:
        "Downloads a channel's manifest and bundle and verifies them as a device would: the session key and the checksum must decrypt with the public key, the checksum must match the decrypted zip, the zip must hold index.html; a public key the plugin cannot use (not a PKCS#1 BEGIN RSA PUBLIC KEY, not RSA-2048) is refused as a device would. With --current, says whether a device running VERSION would apply it, and why not. Exit 0 verified (and applicable), 1 refused or not applicable, 2 bad input, 4 a server that does not answer or sends more than the bound.",
      options: OTACommand.verifyOptions)

  private func verify(_ arguments: [String]) throws -> ExitCode {
    let parsed = try ParsedOptions.parse(
      arguments, OTACommand.verifyOptions, command: "qualify ota verify")
    let out = Terminal.standardOutput
    if parsed.has("help") {
      out.write(OTACommand.verifyHelp)
      return .qualified
    }
    let bundleLimit = try parsed.value("max-bundle-size").map {
      try OTACommand.size($0, option: "--max-bundle-size")
    }
    guard let manifestLocation = parsed.value("manifest") else {
      throw InputError(
        "qualify ota verify needs --manifest", hint: "see: qualify ota verify --help")
    }
    guard
      let keyText = parsed.value("public-key")
        ?? ProcessInfo.processInfo.environment["MOBILE_OTA_SIGNING_PUBLIC_KEY_B64"]
    else {
      throw InputError(
        "no public key", hint: "pass --public-key (the app's MOBILE_OTA_SIGNING_PUBLIC_KEY_B64)")
    }
    let publicKey = try CapgoBundle.key(base64: keyText, isPrivate: false)
    let fetcher = ObjectFetcher(
      client: try client(ca: parsed.value("ca"), connectTo: parsed.all("connect-to")))
    let (manifestBytes, manifestURL) = try fetcher.fetch(
      manifestLocation, limit: ObjectFetcher.manifestLimit)
    let manifest = try Manifest.parse(manifestBytes, source: manifestLocation)
    let (bundle, bundleURL) = try fetcher.fetch(
      manifest.url, relativeTo: manifestURL, limit: bundleLimit ?? ObjectFetcher.defaultBundleLimit)
    let orderingName = parsed.value("ordering") ?? "count"
    guard let ordering = ReleaseOrdering(rawValue: orderingName) else {
      throw InputError(
        "--ordering must be count or sequence, got '\(orderingName)'",
        hint: "the app's qualify.json ota.ordering says which")
    }
    let applied = try parsed.value("applied-sequence").map { text -> Double in
      guard let value = Double(text), value.isFinite else {
        throw InputError("--applied-sequence must be a number, got '\(text)'")
      }
      return value
    }
    let report = BundleVerifier.verify(
      manifest: manifest, bundle: bundle, publicKey: publicKey,
      current: parsed.value("current").map(BundleVersion.init), ordering: ordering,
      builtin: parsed.value("builtin"), appliedSequence: applied)
    out.line("manifest \(manifestURL): version \(manifest.version)")
    out.line("bundle   \(bundleURL) (\(bundle.count) bytes)")
    var code = ExitCode.qualified
    // The signature may hold for qualify and still be refused on a device: a key form or size
    // the plugin cannot use refuses every bundle.
    // --public-key is the CI secret's form (base64 of the PEM): its key, not its wrapping.
    let keyProblem = CapgoPublicKey.problem(keyText)
    if let problem = keyProblem {
      out.line(out.style("refused:", .red, .bold) + " a device would refuse it: \(problem)")
      code = .notQualified
    } else if let refusal = report.refusal {
      out.line(
        out.style("refused:", .red, .bold) + " \(refusal.description) [\(refusal.reason.rawValue)]")
      code = .notQualified
    } else {
      out.line(
        out.style("verified:", .green, .bold)
          + " session key and checksum signed by the key; \(report.files.count) files, index.html at the root"
      )
    }
    if let current = parsed.value("current"),
      !OTACommand.printDecision(
        report, of: manifest, current: current, refused: report.refusal != nil || keyProblem != nil)
    {
      code = .notQualified
    }
    return code
  }

  /// Whether a device running `current` would apply the manifest, printed; false when it
  /// would not.
  static func printDecision(
    _ report: VerificationReport, of manifest: Manifest, current: String, refused: Bool
  ) -> Bool {
    let out = Terminal.standardOutput
    guard let decision = report.decision else { return true }
    if decision.applies && refused {
      out.line(
        "a device running \(current) would download \(manifest.version) (\(decision.rule)) and then refuse it: it keeps \(current)"
      )
    } else if decision.applies {
      out.line("a device running \(current) would apply \(manifest.version): \(decision.rule)")
    } else {
      out.line(
        out.style("would not apply:", .yellow, .bold)
          + " a device running \(current) keeps it: \(decision.rule)")
      return false
    }
    return true
  }

  /// A byte count: digits, optionally followed by K, M or G (binary multiples).
  static func size(_ text: String, option: String) throws -> Int {
    let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
    var digits = Substring(text)
    var multiplier = 1
    if let last = text.uppercased().last, let unit = units[last] {
      digits = digits.dropLast()
      multiplier = unit
    }
    guard let value = Int(digits), value > 0, value <= (1 << 40) / multiplier else {
      throw InputError(
        "\(option) must be a positive size in bytes (K, M or G allowed, at most 1024G), got '\(text)'"
      )
    }
    return value * multiplier
  }

  private func client(ca: String?, connectTo: [String]) throws -> HTTPClient {
    var pem: String?
    if let ca {
      guard let data = FileManager.default.contents(atPath: ca) else {
        throw InputError("cannot read --ca \(ca)")
      }
      pem = String(decoding: data, as: UTF8.self)
    }
    var origins: [String: UInt16] = [:]
    for entry in connectTo {
      let parts = entry.split(separator: ":")
      guard parts.count == 4, parts[2] == "127.0.0.1" || parts[2] == "localhost",
        let port = UInt16(parts[3])
      else {
        throw InputError("--connect-to must be HOST:PORT:127.0.0.1:PORT, got '\(entry)'")
      }
      origins["\(parts[0]):\(parts[1])"] = port
    }
    return try HTTPClient(
      configuration: .init(
        trustedCertificatesPEM: pem, origins: origins, allowsOutsideOrigins: true, timeout: 30,
        userAgent: "qualify-ota"))
  }
}
