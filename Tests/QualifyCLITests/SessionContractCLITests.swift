import Foundation
import QualifyTestSupport
import Testing

/// A third kind (seed 002): a mobile app and its backend on the session contract.
@Suite(.serialized) struct SessionContractCLITests {
  @Test func theSessionSampleRunsItsOwnPackAgainstTheContractsChecklist() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-session")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let run = try CLI.run(
      [
        "--app", Fixtures.root + "/Scenarios/apps/heymoov", "--channel", "prod", "--scenarios",
        CLI.scenarios, "--seed", "4", "--json", "--report-dir",
        scratch.appendingPathComponent("Reports").path,
      ], in: scratch)
    #expect(run.status == 0, "\(run.stderr.suffix(1500))")
    let results = try StackCLITests.results(run)
    #expect(results.count == 34)
    #expect(results.keys.allSatisfy { $0.hasPrefix("session/") }, "\(results.keys.sorted())")
    for (id, result) in results {
      #expect(result["verdict"] as? String == "passed", "\(id): \(result["message"] ?? "")")
    }
    // Every section of the contract is proven, passkeys, onboarding and recovery included.
    #expect(run.stderr.contains("10 of 10 checklist items covered"), "\(run.stderr.suffix(600))")
    // What opens a session without a login (an invitation, a mailed link, the flow's token, the
    // password the app chose) is as secret as a token: redacted in the store and the report.
    var written = ""
    let files = FileManager.default.enumerator(
      at: scratch.appendingPathComponent("Reports"), includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
      if let data = FileManager.default.contents(atPath: file.path) {
        written += String(decoding: data, as: UTF8.self)
      }
    }
    #expect(written.contains("onboardingToken") && written.contains("recoveryCode"))
    let raw = try NSRegularExpression(
      pattern:
        #"(onboardingToken|recoveryToken|invitationCode|recoveryCode|password)(\\?"|&quot;)\s*:\s*(\\?"|&quot;)(?!\[REDACTED)[^"\\&]{6,}"#
    )
    let leaks = raw.matches(in: written, range: NSRange(written.startIndex..., in: written))
    #expect(
      leaks.isEmpty,
      "\(leaks.prefix(3).compactMap { Range($0.range, in: written).map { written[$0] } })")
  }

  @Test func contractStackMistakesAreBadInput() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-session")
    defer { try? FileManager.default.removeItem(at: scratch) }
    for (text, words) in [
      (
        #"{"backend": {"baseURL": "https://api.example"}}"#,
        "\"testUsers\" must list the backend's test accounts"
      ),
      (#"{"testUsers": []}"#, "names the backend under test"),
      (
        #"{"ota": {"manifestURL": "https://x.example/m.json"}, "backend": {"baseURL": "https://api.example"}}"#,
        "\"ota\" is named by a single-origin app's stack file, and the app is a session-contract shell: its stack file names backend and testUsers only"
      ),
    ] {
      try Data(text.utf8).write(to: scratch.appendingPathComponent("stack.json"))
      let run = try CLI.run(
        ["--app", Fixtures.root + "/Scenarios/apps/heymoov", "--stack", "stack.json"], in: scratch)
      #expect(run.status == 2, "\(text): \(run.stderr)")
      #expect(run.stderr.contains(words), "\(text): \(run.stderr)")
    }
  }

  /// An independent implementation of the contract's backend half (Python, written from the
  /// seed's text), served over HTTPS, as the backend under test (`--stack`, contract mode).
  func contractBackend(_ scratch: URL, reuseDetection: Bool = true, rotation: Bool = true) throws
    -> (
      peer: TestPeer, stack: String, environment: [String: String]
    )
  {
    let port = try TestPeer.freePort()
    let peer = try TestPeer(
      python: "/usr/bin/python3", script: "interop/session_backend.py",
      input: [
        "port": port, "host": "localhost", "reuse_detection": reuseDetection,
        "rotation": rotation,
        "users": [
          ["login": "ana@example.org", "password": "s3cret!x"],
          ["login": "bo@example.org", "password": "pw&2"],
        ],
        "ca_file": scratch.appendingPathComponent("contract-ca.pem").path,
      ])
    let stack = scratch.appendingPathComponent("stack.json")
    try Data(
      #"""
      {"backend": {"baseURL": "https://localhost:\#(port)"},
       "testUsers": [{"username": "ana@example.org", "passwordEnv": "QUALIFY_U1"},
                     {"username": "bo@example.org", "passwordEnv": "QUALIFY_U2"}],
       "caFile": "contract-ca.pem"}
      """#.utf8
    ).write(to: stack)
    return (peer, stack.path, ["QUALIFY_U1": "s3cret!x", "QUALIFY_U2": "pw&2"])
  }

  @Test func aRealBackendThatKeepsTheContractPasses() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-session")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (peer, stack, environment) = try contractBackend(scratch)
    defer { peer.stop() }
    let run = try CLI.run(
      [
        "--app", Fixtures.root + "/Scenarios/apps/heymoov", "--channel", "prod", "--scenarios",
        CLI.scenarios, "--stack", stack, "--json",
      ], in: scratch, environment: environment)
    #expect(run.status == 0, "\(run.stderr.suffix(1500))")
    let results = try StackCLITests.results(run)
    for id in [
      "session/envelope", "session/rotation", "session/no-store", "session/logout-all",
      "session/passkeys",
    ] {
      for platform in ["ios", "android"] {
        let result = try #require(results["\(id) [\(platform)]"])
        #expect(result["verdict"] as? String == "passed", "\(id): \(result["message"] ?? "")")
        #expect(result["proof"] as? String == "real", "\(id)")
      }
    }
    // What a real backend cannot be made to do is not applicable, and said.
    #expect(results["session/terminal-error [ios]"]?["verdict"] as? String == "not-applicable")
    #expect(!run.stdout.contains("s3cret!x") && !run.stderr.contains("s3cret!x"))
    // The real backend's tokens are as secret as the mock's: redacted everywhere.
    var written = run.stdout + run.stderr
    let files = FileManager.default.enumerator(
      at: scratch.appendingPathComponent("Reports"), includingPropertiesForKeys: nil)
    while let file = files?.nextObject() as? URL {
      if let data = FileManager.default.contents(atPath: file.path) {
        written += String(decoding: data, as: UTF8.self)
      }
    }
    let raw = try NSRegularExpression(
      pattern: #"(access|refresh)Token\\?"\s*:\s*\\?"(?!\[REDACTED)[A-Za-z0-9_-]{16,}"#)
    let leaks = raw.numberOfMatches(
      in: written, range: NSRange(written.startIndex..., in: written))
    #expect(leaks == 0, "\(leaks) raw tokens written")
    #expect(written.contains("[REDACTED"))
  }

  @Test func aRealBackendWithoutReuseDetectionFailsNamingRefreshReused() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-session")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (peer, stack, environment) = try contractBackend(scratch, reuseDetection: false)
    defer { peer.stop() }
    let run = try CLI.run(
      [
        "--app", Fixtures.root + "/Scenarios/apps/heymoov", "--channel", "prod", "--scenarios",
        CLI.scenarios, "--stack", stack, "--filter", "session/rotation", "--json",
      ], in: scratch, environment: environment)
    #expect(run.status == 1)
    let results = try StackCLITests.results(run)
    for platform in ["ios", "android"] {
      let rotation = try #require(results["session/rotation [\(platform)]"])
      #expect(rotation["verdict"] as? String == "failed")
      #expect(
        (rotation["message"] as? String)?.contains(
          "step 2 \"the retired token replayed is refused as refresh_reused\": expect json error is refresh_reused"
        ) == true,
        "\(rotation["message"] ?? "")")
    }
  }

  @Test func aRealBackendWithoutRotationFailsAtTheReplay() throws {
    let scratch = try Fixtures.temporaryDirectory("qualify-session")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (peer, stack, environment) = try contractBackend(scratch, rotation: false)
    defer { peer.stop() }
    let run = try CLI.run(
      [
        "--app", Fixtures.root + "/Scenarios/apps/heymoov", "--channel", "prod", "--scenarios",
        CLI.scenarios, "--stack", stack, "--filter", "session/rotation", "--json",
      ], in: scratch, environment: environment)
    #expect(run.status == 1)
    let results = try StackCLITests.results(run)
    let rotation = try #require(results["session/rotation [ios]"])
    #expect(rotation["verdict"] as? String == "failed")
    #expect(
      (rotation["message"] as? String)?.contains(
        "step 2 \"the retired token replayed is refused as refresh_reused\": expect json error is refresh_reused"
      ) == true
        && (rotation["message"] as? String)?.contains(
          "heymoov never had a refresh token rotated out")
          == true,
      "\(rotation["message"] ?? "")")
  }
}
