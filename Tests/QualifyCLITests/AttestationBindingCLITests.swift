import Foundation
import QualifyCrypto
import QualifyTestSupport
import Testing

/// An attestation binds every input the verdict was reached with, the pipeline's env files
/// included, and signing never waits on a terminal nobody is at.
@Suite struct AttestationBindingCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-attest")
  }

  private func keys() throws -> (privateKey: String, publicKey: String) {
    let key = try Key.generateP256()
    let privatePath = scratch.appendingPathComponent("signing.pem")
    try Data(try key.pkcs8PrivatePEM().utf8).write(to: privatePath)
    let publicPath = scratch.appendingPathComponent("signing.pub.pem")
    try Data(try key.spkiPublicPEM().utf8).write(to: publicPath)
    return (privatePath.path, publicPath.path)
  }

  @Test func aPipelineEnvFileChangedAfterTheRunIsNeitherAttestedNorVerified() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let sample = Fixtures.sampleApp
    let backend = scratch.appendingPathComponent("backend.env")
    try FileManager.default.copyItem(
      at: URL(fileURLWithPath: sample + "/ci/env/prod/backend.env"), to: backend)
    let app = Fixtures.file("apps/no-release-env")
    let frontend = [
      sample + "/ci/env/prod/frontend.local", sample + "/deploy/env/ota-signing.test",
    ]
    let run = try CLI.run(
      [
        "--channel", "prod", "--app", app, "--scenarios", CLI.scenarios, "--seed", "3",
        "--backend-env", backend.path, "--frontend-env", frontend[0], "--frontend-env", frontend[1],
      ], in: scratch)
    #expect(run.status == 0, "\(run.stdout.suffix(800))")
    #expect(run.stdout.contains("QUALIFIED — channel prod"))
    let (privateKey, publicKey) = try keys()
    let attest = try CLI.run(
      ["attest", "--key", privateKey, "--out", "verdict.dsse.json"], in: scratch)
    #expect(attest.status == 0, "\(attest.stdout)\(attest.stderr)")
    let verifyArguments = [
      "verify-attestation", "verdict.dsse.json", "--key", publicKey, "--app", app,
    ]
    let pipeline = [
      "--backend-env", backend.path, "--frontend-env", frontend[0], "--frontend-env", frontend[1],
    ]
    let verified = try CLI.run(verifyArguments + pipeline, in: scratch)
    #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
    // Not given again: the verifier cannot know the release runs with what was qualified.
    let missing = try CLI.run(verifyArguments, in: scratch)
    #expect(missing.status == 1)
    #expect(
      missing.stderr.contains("backend:backend.env: attested; pass it with --backend-env FILE"),
      "\(missing.stderr)")
    // One setting changed after the run.
    let text = try String(contentsOf: backend, encoding: .utf8)
    try Data((text + "\nPUSH_APNS_USE_SANDBOX=True\n").utf8).write(to: backend)
    let changed = try CLI.run(verifyArguments + pipeline, in: scratch)
    #expect(changed.status == 1, "\(changed.stdout)\(changed.stderr)")
    // Named from the working directory, as the run recorded it: no machine path.
    #expect(
      changed.stderr.contains("backend:backend.env: backend.env differs"), "\(changed.stderr)")
    let again = try CLI.run(["attest", "--key", privateKey, "--out", "again.json"], in: scratch)
    #expect(again.status == 1)
    #expect(again.stderr.contains("the pipeline env changed since run"), "\(again.stderr)")
  }

  @Test func aPassphraseProtectedKeyNeverWaitsOnStandardInput() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (privateKey, _) = try keys()
    let encrypted = scratch.appendingPathComponent("encrypted.pem").path
    let made = try Programs.run(
      "/usr/bin/openssl",
      [
        "pkcs8", "-topk8", "-in", privateKey, "-out", encrypted, "-v2", "aes-256-cbc", "-passout",
        "pass:correct horse",
      ], in: scratch.path)
    try #require(made.status == 0, "\(made.stderr)")
    let run = try CLI.run(
      [
        "--channel", "prod", "--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios, "--seed",
        "3",
      ], in: scratch)
    #expect(run.status == 0)
    // Standard input is a pipe nobody writes to or closes: a prompt would wait on it.
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CLI.binary)
    process.arguments = ["attest", "--key", encrypted, "--out", "v.json"]
    process.currentDirectoryURL = scratch
    let stdin = Pipe()
    let stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = FileHandle.nullDevice
    process.standardError = stderr
    try process.run()
    let watchdog = DispatchWorkItem { process.terminate() }
    DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
    let message = String(
      decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    watchdog.cancel()
    try? stdin.fileHandleForWriting.close()
    #expect(process.terminationReason == .exit, "it waited until the watchdog")
    #expect(process.terminationStatus == 2, "\(message)")
    #expect(message.contains("is a passphrase-protected key, and QUALIFY_KEY_PASSPHRASE"))
    let wrong = try CLI.run(
      ["attest", "--key", encrypted, "--out", "v.json"], in: scratch,
      environment: ["QUALIFY_KEY_PASSPHRASE": "wrong"])
    #expect(wrong.status == 2)
    #expect(wrong.stderr.contains("cannot be decrypted with the passphrase"))
    #expect(!wrong.stderr.contains("wrong"), "the passphrase is not echoed")
    let signed = try CLI.run(
      ["attest", "--key", encrypted, "--out", "v.json"], in: scratch,
      environment: ["QUALIFY_KEY_PASSPHRASE": "correct horse"])
    #expect(signed.status == 0, "\(signed.stdout)\(signed.stderr)")
  }
}
