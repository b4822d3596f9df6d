import Foundation
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Issue 25 item 2: shards that merge. Four `--shard I/4` processes merge into one run whose
/// verdict, counts, JUnit and attestation are a single full run's; a shard missing, repeated
/// or of another qualification is bad input naming it.
@Suite struct MergeCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryApp("qualify-merge")
  }

  func shard(_ index: Int, seed: Int = 4, database: String) throws -> ProcessResult {
    try CLI.run(
      [
        "--channel", "prod", "--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios, "--seed",
        String(seed), "--shard", "\(index)/4", "--db", database, "--report-dir", "shard-\(index)",
      ], in: scratch)
  }

  func junitCounts(_ path: String) throws -> (tests: String?, failures: String?, skipped: String?) {
    let document = try XMLDocument(contentsOf: scratch.appendingPathComponent(path))
    let suite = try #require(document.rootElement()?.elements(forName: "testsuite").first)
    return (
      suite.attribute(forName: "tests")?.stringValue,
      suite.attribute(forName: "failures")?.stringValue,
      suite.attribute(forName: "skipped")?.stringValue
    )
  }

  @Test func fourShardsMergeIntoTheFullRunAndABadSetIsRefused() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    // Four processes at once, as four CI jobs would run them.
    let shards = Locked<[Int: (status: Int32, stdout: String)]>([:])
    let failures = Locked<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 4) { offset in
      do {
        let result = try shard(offset + 1, database: "shard-\(offset + 1).sqlite")
        let outcome = (status: result.status, stdout: result.stdout)
        shards.withLock { $0[offset + 1] = outcome }
      } catch {
        failures.withLock { $0.append("\(error)") }
      }
    }
    #expect(failures.withLock { $0 }.isEmpty)
    for (index, result) in shards.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
      #expect(result.status == 0, "shard \(index): \(result.stdout.suffix(400))")
      #expect(result.stdout.contains("PASSED (partial: shard \(index)/4, "))
    }
    let full = try CLI.run(
      [
        "--channel", "prod", "--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios, "--seed",
        "4", "--db", "full.sqlite", "--report-dir", "full", "--junit", "full.xml", "--json",
      ], in: scratch)
    #expect(full.status == 0, "\(full.stderr.suffix(400))")
    let all = (1...4).map { "shard-\($0).sqlite" }
    // The merge job's own checkout of the app: what `attest` reads the files from.
    try FileManager.default.copyItem(
      at: URL(fileURLWithPath: Fixtures.sampleApp), to: scratch.appendingPathComponent("checkout"))
    // The shards in any order.
    let merge = try CLI.run(
      ["merge"] + all.reversed() + [
        "--db", "merged.sqlite", "--report-dir", "merged", "--junit", "merged.xml", "--json",
        "--app", "checkout",
      ], in: scratch)
    #expect(merge.status == 0, "\(merge.stderr.suffix(600))")
    #expect(merge.stderr.contains("QUALIFIED — channel prod"), "\(merge.stderr.suffix(600))")

    func document(_ text: String) throws -> [String: Any] {
      try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }
    let single = try document(full.stdout)
    let merged = try document(merge.stdout)
    #expect(merged["verdict"] as? String == "qualified")
    #expect((merged["run"] as? [String: Any])?["app"] as? String == "checkout")
    #expect(merged["verdict"] as? String == single["verdict"] as? String)
    #expect(merged["checklistSummary"] as? String == single["checklistSummary"] as? String)
    func outcomes(_ document: [String: Any]) -> [String] {
      ((document["results"] as? [[String: Any]]) ?? []).map { result in
        let controls = ((result["controls"] as? [[String: Any]]) ?? []).map {
          "\($0["name"] ?? ""):\($0["outcome"] ?? "")"
        }
        return
          "\(result["scenarioID"] ?? "") \(result["platform"] ?? "") \(result["verdict"] ?? "") \(controls)"
      }.sorted()
    }
    #expect(outcomes(merged) == outcomes(single))
    #expect(outcomes(merged).count > 50)
    let mergedScope = try #require(merged["scope"] as? [String: Any])
    #expect((mergedScope["mergedFrom"] as? [String])?.count == 4)
    #expect(mergedScope["shard"] == nil)
    let junit = try junitCounts("merged.xml")
    let reference = try junitCounts("full.xml")
    #expect(junit.tests == reference.tests && junit.failures == "0", "\(junit) vs \(reference)")
    #expect(junit.skipped == reference.skipped)

    // The merged run is attestable as a full run is.
    let key = scratch.appendingPathComponent("signing.pem")
    try Data(try Key.generateP256().pkcs8PrivatePEM().utf8).write(to: key)
    let attest = try CLI.run(
      ["attest", "--db", "merged.sqlite", "--key", key.path, "--out", "merged.dsse.json"],
      in: scratch)
    #expect(attest.status == 0, "\(attest.stdout)\(attest.stderr)")
    #expect(attest.stdout.contains("QUALIFIED"))

    // A shard missing.
    let missing = try CLI.run(["merge"] + all.dropLast() + ["--db", "x.sqlite"], in: scratch)
    #expect(missing.status == 2)
    #expect(missing.stderr.contains("shard 4/4 missing: 3 of 4 given"), "\(missing.stderr)")
    // A shard given twice.
    let repeated = try CLI.run(["merge"] + all + [all[0], "--db", "x.sqlite"], in: scratch)
    #expect(repeated.status == 2)
    #expect(repeated.stderr.contains("repeats shard 1/4"), "\(repeated.stderr)")
    // A shard of another qualification (another seed).
    let foreignRun = try shard(4, seed: 9, database: "foreign-4.sqlite")
    #expect(foreignRun.status == 0)
    let foreign = try CLI.run(
      ["merge"] + all.dropLast() + ["foreign-4.sqlite", "--db", "x.sqlite"], in: scratch)
    #expect(foreign.status == 2)
    #expect(
      foreign.stderr.contains("shard 4/4 (foreign-4.sqlite"), "\(foreign.stderr)")
    #expect(foreign.stderr.contains("seed 4 vs 9"), "\(foreign.stderr)")
    // A shard run with other options (a --timeout of its own).
    let slower = try CLI.run(
      [
        "--channel", "prod", "--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios, "--seed",
        "4", "--shard", "4/4", "--db", "slower-4.sqlite", "--timeout", "45s",
      ], in: scratch)
    #expect(slower.status == 0)
    let options = try CLI.run(
      ["merge"] + all.dropLast() + ["slower-4.sqlite", "--db", "x.sqlite"], in: scratch)
    #expect(options.status == 2)
    #expect(
      options.stderr.contains("the options that rebuild the world differ"), "\(options.stderr)")
    // A file that is no database.
    try Data("not sqlite".utf8).write(to: scratch.appendingPathComponent("junk.sqlite"))
    let junk = try CLI.run(["merge", "junk.sqlite", "--db", "x.sqlite"], in: scratch)
    #expect(junk.status == 2, "\(junk.stderr)")
    #expect(junk.stderr.contains("junk.sqlite cannot be read as a shard"), "\(junk.stderr)")
    // A run that was not a shard.
    let whole = try CLI.run(["merge", "full.sqlite", "--db", "x.sqlite"], in: scratch)
    #expect(whole.status == 2)
    #expect(whole.stderr.contains("is not a shard"), "\(whole.stderr)")
    // Nothing was recorded by a refused merge.
    #expect(
      !FileManager.default.fileExists(atPath: scratch.appendingPathComponent("x.sqlite").path))
  }
}
