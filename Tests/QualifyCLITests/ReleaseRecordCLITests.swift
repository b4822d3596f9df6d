import Foundation
import QualifyCrypto
import QualifyTestSupport
import Testing

/// Issue 25 item 5: every output names what was qualified (ids, versions, build numbers, the
/// OTA bundle, the commit) and no output names a folder of the machine.
@Suite struct ReleaseRecordCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryApp("qualify-release-record")
  }

  /// The sample app as a git checkout with store versions the pipeline would set.
  func checkout() throws -> (app: URL, commit: String) {
    let app = scratch.appendingPathComponent("app")
    try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.sampleApp), to: app)
    func git(_ arguments: [String]) throws -> String {
      let result = try Programs.run("/usr/bin/env", ["git", "-C", app.path] + arguments)
      try #require(result.status == 0, "git \(arguments): \(result.stderr)")
      return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    _ = try git(["init", "-q"])
    _ = try git(["add", "-A"])
    _ = try git(["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "release"])
    return (app, try git(["rev-parse", "HEAD"]))
  }

  @Test func everyOutputNamesTheReleaseAndNoMachinePath() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (app, commit) = try checkout()
    // The pipeline's build numbers, as a release job exports them.
    let env = scratch.appendingPathComponent("release.env")
    try Data("MOBILE_VERSION_NAME=2.4.0\nMOBILE_VERSION_CODE=57\n".utf8).write(to: env)
    let work = scratch.appendingPathComponent("work")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let out = scratch.appendingPathComponent("out")
    // Every path given absolute, from a working directory beside them.
    let run = try CLI.run(
      [
        "--channel", "prod", "--app", app.path, "--seed", "3", "--frontend-env", env.path,
        "--db", out.appendingPathComponent("q.sqlite").path,
        "--report-dir", out.appendingPathComponent("reports").path,
        "--junit", out.appendingPathComponent("junit.xml").path,
        "--summary", out.appendingPathComponent("summary.md").path, "--json",
      ], in: work)
    #expect(run.status == 0, "\(run.stderr.suffix(800))")

    let document = try #require(
      try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    let release = try #require(document["release"] as? [String: Any])
    let builds = try #require(release["builds"] as? [[String: Any]])
    let ios = try #require(builds.first { $0["platform"] as? String == "ios" })
    #expect(ios["appId"] as? String == "local.suitenumerique.messages")
    #expect(ios["displayName"] as? String == "Messages")
    // The displayed version is the synced config's appVersion on both platforms, as the
    // real repository's generate-ios-xcconfig.mjs and build.gradle take it: the pipeline's
    // MOBILE_VERSION_NAME is not what the store shows.
    #expect(ios["version"] as? String == "1.4.0")
    #expect(ios["buildNumber"] as? String == "57")
    let android = try #require(builds.first { $0["platform"] as? String == "android" })
    #expect(android["appId"] as? String == "local.suitenumerique.messages")
    #expect(android["buildNumber"] as? String == "57")
    // versionName is read back from the synced config at configuration time.
    #expect(android["version"] as? String == "1.4.0")
    let sources = try #require(android["sources"] as? [String: String])
    #expect(sources["version"]?.contains("build.gradle:") == true, "\(sources)")
    #expect(release["commit"] as? String == commit)
    let ota = try #require(release["ota"] as? [String: Any])
    #expect(ota["channel"] as? String == "prod")
    #expect((ota["builtinVersion"] as? String)?.isEmpty == false)

    let junit = try String(
      contentsOf: out.appendingPathComponent("junit.xml"), encoding: .utf8)
    #expect(junit.contains(#"<property name="release-ios-version" value="1.4.0"/>"#))
    #expect(junit.contains(#"<property name="release-android-build" value="57"/>"#))
    #expect(junit.contains(#"<property name="release-commit" value="\#(commit)"/>"#))
    let summary = try String(
      contentsOf: out.appendingPathComponent("summary.md"), encoding: .utf8)
    #expect(summary.contains("Release: iOS local.suitenumerique.messages 1.4.0 \\(57\\)"))
    let id = try #require((document["run"] as? [String: Any])?["id"] as? String)
    let report = try String(
      contentsOf: out.appendingPathComponent("reports/runs/\(id)/index.html"), encoding: .utf8)
    #expect(report.contains("version 1.4.0 · build 57"))
    #expect(report.contains(String(commit.prefix(12))))

    // The attestation of the qualified run names the release too.
    let key = scratch.appendingPathComponent("signing.pem")
    try Data(try Key.generateP256().pkcs8PrivatePEM().utf8).write(to: key)
    let attestation = out.appendingPathComponent("verdict.dsse.json")
    let attest = try CLI.run(
      [
        "attest", id, "--key", key.path, "--db", out.appendingPathComponent("q.sqlite").path,
        "--out", attestation.path,
      ], in: work)
    #expect(attest.status == 0, "\(attest.stderr)")
    let envelope = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: attestation)) as? [String: Any])
    let payload = try #require(
      (envelope["payload"] as? String).flatMap { Data(base64Encoded: $0) })
    let statement = String(decoding: payload, as: UTF8.self)
    #expect(statement.contains(#""buildNumber":"57""#), "\(statement.prefix(400))")
    #expect(statement.contains(commit))

    // No output names the scratch folder or the checkout qualify runs from.
    var outputs: [(String, String)] = [
      ("stdout", run.stdout), ("stderr", run.stderr), ("attest", attest.stdout + attest.stderr),
      ("attestation", statement),
    ]
    let walker = FileManager.default.enumerator(atPath: out.path)
    while let entry = walker?.nextObject() as? String {
      guard !entry.hasSuffix(".sqlite"), !entry.contains(".sqlite-"),
        let text = try? String(
          contentsOf: out.appendingPathComponent(entry), encoding: .utf8)
      else { continue }
      outputs.append((entry, text))
    }
    #expect(outputs.count >= 8, "\(outputs.map(\.0))")
    for (name, text) in outputs {
      for machine in [scratch.path, Fixtures.root] {
        let hit = text.range(of: machine + "/")
        #expect(
          hit == nil,
          "\(name) names \(machine): …\(hit.map { String(text[$0.lowerBound...].prefix(120)) } ?? "")"
        )
      }
    }
    // Reproduce commands stay typeable from the working directory.
    #expect(run.stderr.contains("app Messages (../app)"), "\(run.stderr.prefix(300))")
  }
}
