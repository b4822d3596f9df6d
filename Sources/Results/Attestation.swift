import Foundation
import QualifyCore
import QualifyCrypto
import ResultModel

/// A signed verdict (`qualify attest`, `qualify verify-attestation`; docs/release-report.md): an
/// in-toto Statement v1 whose subjects are the app files the run read (and the OTA bundle when
/// one is given), whose predicate is the verdict, in a DSSE envelope signed with the
/// pipeline's key. A store-release job verifies it against its checkout and refuses a build
/// nobody qualified.
public enum Attestation {
  public static let statementType = "https://in-toto.io/Statement/v1"
  public static let predicateType = "urn:qualify:predicate:release-verdict:v1"
  public static let payloadType = "application/vnd.in-toto+json"

  public struct Subject: Codable, Sendable, Equatable {
    public var name: String
    public var digest: [String: String]

    public init(name: String, sha256: String) {
      self.name = name
      self.digest = ["sha256": sha256]
    }
  }

  public struct Predicate: Codable, Sendable {
    public struct Cell: Codable, Sendable {
      public var item: Int
      public var platform: Platform
      public var state: String
    }

    public var channel: Channel
    public var run: String
    public var seed: UInt64
    public var verdict: String
    public var headline: String
    public var startedAt: String
    public var app: String
    public var appVersion: String?
    public var qualifyVersion: String
    public var checklist: String
    public var checklistCells: [Cell]
    public var controls: String
    public var waivers: [Waiver]
    /// SHA-256 over every scenario file of the catalogue the run was judged by.
    public var catalogue: String?
    /// Env files the pipeline gave (`backend:<path>`, `frontend:<path>`), with their digests.
    public var pipelineEnv: [AppFileDigest]
    /// What was qualified: each platform's store id, version and build number, the OTA
    /// bundle and the commit.
    public var release: ReleaseRecord?
    /// What qualify checked of the OTA bundle subject: nothing — it is bound to the verdict,
    /// not verified by it (`qualify ota verify` does that).
    public var bundle: String?
  }

  public struct Statement: Codable, Sendable {
    public var type: String
    public var subject: [Subject]
    public var predicateType: String
    public var predicate: Predicate

    enum CodingKeys: String, CodingKey {
      case type = "_type"
      case subject, predicateType, predicate
    }
  }

  public struct Envelope: Codable, Sendable {
    public struct Signature: Codable, Sendable {
      public var keyid: String
      public var sig: String
    }

    public var payloadType: String
    public var payload: String
    public var signatures: [Signature]
  }

  /// The statement of a qualified run. `bundle` is the OTA bundle's name and digest.
  /// - Throws: `AttestationError` when the run is not a full qualified run or recorded no
  ///   app files.
  public static func statement(
    run: RunRecord, results: [ScenarioResult], bundle: Subject? = nil
  ) throws -> Statement {
    guard run.status == .qualified else {
      throw AttestationError(
        "run \(run.id) is \(run.status.rawValue), not qualified: only a full qualified run is attested"
      )
    }
    guard let files = run.appFiles, !files.isEmpty else {
      throw AttestationError(
        "run \(run.id) recorded no app files (a run by an older qualify): run qualify again")
    }
    let scope = run.scope ?? RunScope()
    let summary = RunSummary(results, scope: scope)
    let coverage = ChecklistCoverage(
      results, catalogue: scope.catalogue, waived: Set(summary.waived.keys),
      shell: scope.shellKind)
    var subjects = files.map { Subject(name: $0.path, sha256: $0.sha256) }
    if let bundle { subjects.append(bundle) }
    return Statement(
      type: statementType, subject: subjects, predicateType: predicateType,
      predicate: Predicate(
        channel: run.channel, run: run.id, seed: run.seed, verdict: run.status.rawValue,
        headline: summary.headline, startedAt: ResultStore.format(run.startedAt), app: run.appShown,
        appVersion: run.appVersion, qualifyVersion: run.harnessVersion,
        checklist: coverage.summary,
        checklistCells: coverage.cells.map {
          Predicate.Cell(item: $0.item, platform: $0.platform, state: $0.state.rawValue)
        },
        controls: "\(summary.controlsBitten) of \(summary.controlsRun) bit",
        waivers: summary.appliedWaivers, catalogue: scope.catalogueDigest,
        pipelineEnv: scope.pipelineEnvFiles ?? [], release: scope.release,
        bundle: bundle.map {
          "\($0.name) is named as the release's OTA bundle; qualify did not verify its content"
        }))
  }

  /// DSSE's pre-authentication encoding: what is signed, so that the payload type is signed
  /// along with the payload.
  public static func pae(type: String, body: [UInt8]) -> [UInt8] {
    Array("DSSEv1 \(type.utf8.count) \(type) \(body.count) ".utf8) + body
  }

  /// The envelope of `statement`, signed with `key` (ECDSA P-256 or Ed25519).
  public static func sign(_ statement: Statement, key: Key) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let body = Array(try encoder.encode(statement))
    let signature = try key.signMessage(pae(type: payloadType, body: body))
    let envelope = Envelope(
      payloadType: payloadType, payload: Data(body).base64EncodedString(),
      signatures: [
        Envelope.Signature(
          keyid: try key.publicKeyID(), sig: Data(signature).base64EncodedString())
      ])
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(envelope), as: UTF8.self) + "\n"
  }

  /// What checking an envelope found.
  public struct Verification: Sendable {
    public var statement: Statement
    /// Subjects whose file is missing or differs, with why (`…/Info.plist: differs`).
    public var mismatches: [String]
    public var checked: Int
  }

  /// Checks the envelope's signature with `key`, then the subjects against `files`, the app
  /// files a build of the checkout reads now (path relative to the app → SHA-256): the same
  /// set, the same bytes. A file the build now reads that was not attested (one that shadows
  /// an attested file, a waiver file added since) is a mismatch too. `bundle` is the OTA
  /// bundle, required when the statement names one.
  /// - Throws: `AttestationError` when the envelope is malformed or no signature verifies.
  public static func verify(
    envelope text: String, key: Key, files: [String: String], bundle: URL? = nil,
    pipelineEnv: [(role: String, sha256: String, path: String)] = []
  ) throws -> Verification {
    guard let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(text.utf8)),
      let body = Data(base64Encoded: envelope.payload)
    else { throw AttestationError("not a DSSE envelope (payloadType, payload, signatures)") }
    guard envelope.payloadType == payloadType else {
      throw AttestationError("payloadType is \(envelope.payloadType), not \(payloadType)")
    }
    let message = pae(type: envelope.payloadType, body: Array(body))
    let signed = envelope.signatures.contains { signature in
      guard let bytes = Data(base64Encoded: signature.sig) else { return false }
      return key.verifyMessage(message, signature: Array(bytes))
    }
    guard signed else {
      throw AttestationError("no signature of the envelope verifies with this key")
    }
    guard let statement = try? JSONDecoder().decode(Statement.self, from: body),
      statement.type == statementType, statement.predicateType == predicateType
    else { throw AttestationError("the payload is not a qualify release-verdict statement") }
    var mismatches: [String] = []
    var checked = 0
    let appSubjects = statement.subject.filter { !$0.name.hasPrefix("ota-bundle/") }
    if appSubjects.isEmpty { mismatches.append("the statement names no app file") }
    for subject in appSubjects {
      guard let expected = subject.digest["sha256"] else {
        mismatches.append("\(subject.name): no sha256 digest")
        continue
      }
      checked += 1
      guard let actual = files[subject.name] else {
        mismatches.append(
          "\(subject.name): attested, but the build of this checkout does not read it")
        continue
      }
      if actual != expected {
        mismatches.append("\(subject.name): differs (sha256 \(actual), attested \(expected))")
      }
    }
    let attested = Set(appSubjects.map(\.name))
    for path in files.keys.sorted() where !attested.contains(path) {
      mismatches.append("\(path): read by the build of this checkout, but not attested")
    }
    let bundles = statement.subject.filter { $0.name.hasPrefix("ota-bundle/") }
    if let bundle {
      let name = "ota-bundle/" + bundle.lastPathComponent
      if let subject = bundles.first(where: { $0.name == name }) {
        checked += 1
        let actual = FileManager.default.contents(atPath: bundle.path).map(hex)
        if actual != subject.digest["sha256"] {
          mismatches.append("\(name): \(actual == nil ? "cannot be read" : "differs")")
        }
      } else {
        mismatches.append("\(name): not a subject of the attestation")
      }
    } else if let named = bundles.first {
      mismatches.append("\(named.name): the attestation names an OTA bundle; pass --bundle FILE")
    }
    checked += envMismatches(
      attested: statement.predicate.pipelineEnv, given: pipelineEnv, into: &mismatches)
    return Verification(statement: statement, mismatches: mismatches, checked: checked)
  }

  /// Every env file the pipeline gave the run is recorded with its digest: the same files,
  /// role by role and in order, must be given again (a changed secret or setting is a
  /// different release environment). Answers how many attested files were checked.
  static func envMismatches(
    attested attestedEnv: [AppFileDigest],
    given pipelineEnv: [(role: String, sha256: String, path: String)],
    into mismatches: inout [String]
  ) -> Int {
    var checked = 0
    for role in ["backend", "frontend"] {
      let attested = attestedEnv.filter { $0.path.hasPrefix(role + ":") }
      let given = pipelineEnv.filter { $0.role == role }
      for (index, file) in attested.enumerated() {
        checked += 1
        guard index < given.count else {
          mismatches.append("\(file.path): attested; pass it with --\(role)-env FILE")
          continue
        }
        if given[index].sha256 != file.sha256 {
          mismatches.append(
            "\(file.path): \(given[index].path) differs (sha256 \(given[index].sha256), attested \(file.sha256))"
          )
        }
      }
      for extra in given.dropFirst(attested.count) {
        mismatches.append("\(role):\(extra.path): given, but the run was not given it")
      }
    }
    return checked
  }

  /// The subject of an OTA bundle file.
  public static func bundleSubject(_ url: URL) throws -> Subject {
    guard let data = FileManager.default.contents(atPath: url.path) else {
      throw AttestationError("cannot read the bundle \(url.path)")
    }
    return Subject(name: "ota-bundle/" + url.lastPathComponent, sha256: hex(data))
  }

  /// Lower-case hex SHA-256.
  public static func hex(_ data: Data) -> String {
    Digest.sha256Hex(data)
  }
}

/// An attestation cannot be made or does not hold: exit 1, with what is wrong.
public struct AttestationError: Error, CustomStringConvertible, Sendable {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}
