import Artifacts
import Foundation
import QualifyCore
import QualifyCrypto
import ResultModel
import Results

/// `qualify attest [RUN] --key KEY` and `qualify verify-attestation FILE --key KEY`: a signed
/// verdict a store-release job can check (docs/release-report.md).
struct AttestCommand {
  enum Mode { case attest, verify }

  static let attestOptions: [OptionSpec] = [
    .value("key", "FILE", "The signing key: a PEM private key, ECDSA P-256 or Ed25519."),
    .value(
      "bundle", "FILE", "The OTA bundle (zip) to name as a subject too, when the release has one."),
    .value(
      "out", "FILE",
      "Where to write the envelope (default: REPORT_DIR/runs/<run>/attestation.dsse.json)."),
    .value("db", "FILE", "The results database (default: Reports/qualify.sqlite)."),
    .value("report-dir", "DIR", "Where reports go (default: Reports)."),
    .flag("help", "Show this help."),
  ]

  static let verifyOptions: [OptionSpec] = [
    .value("key", "FILE", "The key to verify with: a PEM public key (or the private key)."),
    .value("app", "DIR", "The checkout of the app to check the subjects against (default: .)."),
    .value(
      "channel", "dev|staging|prod",
      "The channel the release is for: the attestation must be of it (default: prod)."),
    .value("bundle", "FILE", "The OTA bundle to check against its subject."),
    .value(
      "backend-env", "FILE",
      "A pipeline env file the run was given (repeatable, in the run's order): its digest must be the attested one.",
      repeatable: true),
    .value(
      "frontend-env", "FILE", "Likewise for the frontend env files the run was given.",
      repeatable: true),
    .flag("help", "Show this help."),
  ]

  /// The environment variable a passphrase-protected signing key's passphrase is read from:
  /// qualify never prompts, so a CI job never waits on its standard input.
  static let passphraseVariable = "QUALIFY_KEY_PASSPHRASE"

  let mode: Mode
  let parsed: ParsedOptions

  init(_ mode: Mode, arguments: [String]) throws {
    self.mode = mode
    parsed = try ParsedOptions.parse(
      arguments, mode == .attest ? AttestCommand.attestOptions : AttestCommand.verifyOptions,
      command: mode == .attest ? "qualify attest" : "qualify verify-attestation", positionals: .max)
  }

  func execute() throws -> ExitCode {
    let out = Terminal.standardOutput
    if parsed.has("help") {
      switch mode {
      case .attest:
        out.write(
          helpText(
            usage: "qualify attest [RUN|latest] --key KEY.pem [--bundle ZIP] [--out FILE]",
            summary:
              "Writes an in-toto Statement of a full qualified run (subjects: the app files the run read, and the OTA bundle if given; predicate: channel, run, seed, verdict, waivers, checklist coverage, qualify version) in a DSSE envelope signed with KEY. Refuses a run that is not qualified, or whose app files changed since. Exit code: 0 written, 1 refused, 2 bad input.",
            options: AttestCommand.attestOptions))
      case .verify:
        out.write(
          helpText(
            usage:
              "qualify verify-attestation FILE --key KEY.pem [--app DIR] [--channel C] [--bundle ZIP]",
            summary:
              "Checks the envelope's signature with KEY, that it attests a qualified run of the channel, and that a build of the checkout in DIR reads exactly the attested app files with the attested digests (and the OTA bundle, when the attestation names one). Exit code: 0 verified, 1 a signature, the channel or a file does not match, 2 bad input.",
            options: AttestCommand.verifyOptions))
      }
      return .qualified
    }
    guard let keyPath = parsed.value("key") else {
      throw InputError("--key FILE is required (a PEM key, ECDSA P-256 or Ed25519)")
    }
    guard let pem = FileManager.default.contents(atPath: keyPath) else {
      throw InputError("cannot read the key \(keyPath)")
    }
    let text = String(decoding: pem, as: UTF8.self)
    switch mode {
    case .attest: return try attest(key: try loadKey(text, path: keyPath, private: true), out)
    case .verify: return try verify(key: try loadKey(text, path: keyPath, private: false), out)
    }
  }

  private func loadKey(_ pem: String, path: String, private needsPrivate: Bool) throws -> Key {
    let key: Key
    if pem.contains("PRIVATE KEY") {
      let passphrase = ProcessInfo.processInfo.environment[AttestCommand.passphraseVariable]
      if Key.isEncrypted(pem: pem) && (passphrase ?? "").isEmpty {
        throw InputError(
          "\(path) is a passphrase-protected key, and \(AttestCommand.passphraseVariable) is not set",
          hint:
            "qualify does not prompt for a passphrase: set \(AttestCommand.passphraseVariable) (a CI secret), or give an unencrypted key"
        )
      }
      guard let parsed = try? Key.privateKey(pem: pem, passphrase: passphrase) else {
        throw InputError(
          Key.isEncrypted(pem: pem)
            ? "\(path) cannot be decrypted with the passphrase in \(AttestCommand.passphraseVariable)"
            : "\(path) is not a PEM private key OpenSSL can read")
      }
      key = parsed
    } else {
      guard !needsPrivate else {
        throw InputError("\(path) holds no private key: signing needs one")
      }
      guard let parsed = try? Key.publicKey(pem: pem) else {
        throw InputError("\(path) is not a PEM public key OpenSSL can read")
      }
      key = parsed
    }
    guard key.signatureAlgorithm != nil else {
      throw InputError("\(path) is not an ECDSA P-256 or Ed25519 key")
    }
    return key
  }

  private func attest(key: Key, _ out: Terminal) throws -> ExitCode {
    guard parsed.positionals.count <= 1 else {
      throw InputError("qualify attest takes one run", hint: "see: qualify attest --help")
    }
    let store = try StoreAccess.open(parsed)
    let run = try StoreAccess.run(parsed.positionals.first, in: store)
    let bundle = try parsed.value("bundle").map {
      try Attestation.bundleSubject(URL(fileURLWithPath: $0))
    }
    do {
      let statement = try Attestation.statement(
        run: run, results: try store.results(run: run.id), bundle: bundle)
      // A waiver that has expired since the run no longer covers what it waived.
      let today = Waiver.day(Date())
      let expired = statement.predicate.waivers.filter { $0.expires < today }
      guard expired.isEmpty else {
        throw AttestationError(
          "the run relied on waivers that have expired since: \(expired.map { "\($0.label) (until \($0.expires))" }.joined(separator: ", ")); run qualify again"
        )
      }
      // What is attested is what was qualified: an app file changed since is refused.
      let app = URL(fileURLWithPath: run.app)
      let changed = (run.appFiles ?? []).filter { file in
        FileManager.default.contents(atPath: app.appendingPathComponent(file.path).path)
          .map(Attestation.hex) != file.sha256
      }
      guard changed.isEmpty else {
        throw AttestationError(
          "the app changed since run \(run.id): \(changed.map(\.path).joined(separator: ", ")) no longer match what was qualified"
        )
      }
      // The pipeline's env files too: the verdict was reached with those bytes.
      let changedEnv = (run.scope?.pipelineEnvFiles ?? []).filter { file in
        let path = file.path.split(separator: ":", maxSplits: 1).last.map(String.init) ?? ""
        return FileManager.default.contents(atPath: path).map(Attestation.hex) != file.sha256
      }
      guard changedEnv.isEmpty else {
        throw AttestationError(
          "the pipeline env changed since run \(run.id): \(changedEnv.map(\.path).joined(separator: ", ")) no longer match what the run was given"
        )
      }
      let envelope = try Attestation.sign(statement, key: key)
      let target =
        parsed.value("out")
        ?? URL(fileURLWithPath: parsed.value("report-dir") ?? Paths.defaultReportDirectory)
        .appendingPathComponent("runs").appendingPathComponent(run.id)
        .appendingPathComponent("attestation.dsse.json").path
      try ReportFiles.writeText(envelope, to: target)
      out.line(
        "attested run \(run.id) (\(run.channel.rawValue), \(statement.predicate.headline)): \(statement.subject.count) subjects, key \(try key.publicKeyID())"
      )
      out.line(
        "attestation: \(DisplayPath.of(URL(fileURLWithPath: target).standardizedFileURL.path))")
      return .qualified
    } catch let error as AttestationError {
      Terminal.standardError.line(out.style("refused: ", .red, .bold) + error.message)
      return .notQualified
    }
  }

  private func verify(key: Key, _ out: Terminal) throws -> ExitCode {
    guard let file = parsed.positionals.first, parsed.positionals.count == 1 else {
      throw InputError(
        "qualify verify-attestation needs one attestation file",
        hint: "see: qualify verify-attestation --help")
    }
    guard let data = FileManager.default.contents(atPath: file) else {
      throw InputError("cannot read \(file)")
    }
    let app = parsed.value("app") ?? "."
    let channel = try channelOption(parsed)
    // The files a build of the checkout reads now, read as a run reads them (confined to
    // the app and its base, symbolic links refused): what the subjects must equal.
    var files: [String: String] = [:]
    do {
      let repository = try AppRepository(directory: app)
      _ = try repository.builds(for: channel)
      for file in repository.filesRead { files[file.path] = file.sha256 }
      if let waivers = FileManager.default.contents(
        atPath: repository.root.appendingPathComponent(WaiverFile.name).path)
      {
        files[WaiverFile.name] = Attestation.hex(waivers)
      }
    } catch let error as InputError {
      Terminal.standardError.line(
        out.style("not verified: ", .red, .bold)
          + "the checkout at \(app) cannot be read as a build of channel \(channel.rawValue): \(error.message)"
      )
      return .notQualified
    }
    do {
      let pipelineEnv =
        try
        (parsed.all("backend-env").map { ("backend", $0) }
        + parsed.all("frontend-env").map { ("frontend", $0) }).map { role, path in
          guard let data = FileManager.default.contents(atPath: path) else {
            throw InputError("cannot read the \(role) env file \(path)")
          }
          return (
            role: role, sha256: Attestation.hex(data),
            path: DisplayPath.of(URL(fileURLWithPath: path).standardizedFileURL.path)
          )
        }
      let result = try Attestation.verify(
        envelope: String(decoding: data, as: UTF8.self), key: key, files: files,
        bundle: parsed.value("bundle").map { URL(fileURLWithPath: $0) }, pipelineEnv: pipelineEnv)
      let predicate = result.statement.predicate
      guard predicate.channel == channel else {
        Terminal.standardError.line(
          out.style("not verified: ", .red, .bold)
            + "the attestation is of channel \(predicate.channel.rawValue), the release is for \(channel.rawValue)"
        )
        return .notQualified
      }
      guard result.mismatches.isEmpty else {
        Terminal.standardError.line(
          out.style("not verified: ", .red, .bold)
            + "the signature holds, but the checkout is not what was qualified:")
        for mismatch in result.mismatches { Terminal.standardError.line("  " + mismatch) }
        return .notQualified
      }
      guard predicate.verdict == RunRecord.Status.qualified.rawValue else {
        Terminal.standardError.line(
          out.style("not verified: ", .red, .bold) + "the attested verdict is \(predicate.verdict)")
        return .notQualified
      }
      out.line(
        out.style("verified", .green, .bold)
          + ": run \(predicate.run) · channel \(predicate.channel.rawValue) · \(predicate.headline) · \(result.checked) subjects match · qualify \(predicate.qualifyVersion)"
      )
      return .qualified
    } catch let error as AttestationError {
      Terminal.standardError.line(out.style("not verified: ", .red, .bold) + error.message)
      return .notQualified
    }
  }
}
