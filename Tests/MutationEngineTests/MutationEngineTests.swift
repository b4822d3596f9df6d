import Foundation
import Testing

@testable import MutationEngine

/// The generator makes the mistakes issue 23 lists, only in code, and the seeded sample is the
/// same on every run.
@Suite struct MutationEngineTests {
  func edits(_ file: String, _ text: String) -> [(MutationOperator, String)] {
    MutationGenerator.mutations(file: file, text: text).map { ($0.operator, $0.after) }
  }

  @Test func comparisonsAreFlippedAndLoosenedInCodeOnly() {
    let source = """
      // if count < limit in a comment
      if count < limit { reject("a < b") }
      """
    let mutants = edits("A.swift", source)
    let relational = mutants.filter {
      $0.0 == .relationalFlipped || $0.0 == .relationalLoosened
    }
    #expect(
      relational.map(\.1).sorted() == [
        "if count <= limit { reject(\"a < b\") }", "if count >= limit { reject(\"a < b\") }",
      ])
  }

  @Test func genericsArrowsAndShiftsAreNotOperators() {
    let source = "func f<T>(x: Array<T>) -> Int { return 1 << 2 }\n"
    let mutants = edits("A.swift", source)
    #expect(!mutants.contains { $0.0 == .relationalFlipped || $0.0 == .relationalLoosened })
  }

  @Test func anEqualityBecomesASuffixMatchAndAFlip() {
    let kotlin = "if (uri.host == trustedHost) { allow() }\n"
    let mutants = edits("A.kt", kotlin)
    #expect(
      mutants.contains { $0 == (.equalityFlipped, "if (uri.host != trustedHost) { allow() }") })
    #expect(
      mutants.contains {
        $0 == (.equalityToMatch, "if (uri.host.endsWith(trustedHost)) { allow() }")
      })
    let swift = "guard url.scheme == \"https\" else { return }\n"
    #expect(
      edits("A.swift", swift).contains {
        $0 == (.equalityToMatch, "guard url.scheme.hasSuffix(\"https\") else { return }")
      })
  }

  @Test func eachConditionOfAConjunctionCanBeDropped() {
    let source = "if (a.isSecure() && b == c) {\n"
    let dropped = edits("A.java", source).filter { $0.0 == .conditionDropped }.map(\.1)
    #expect(dropped.sorted() == ["if (a.isSecure()) {", "if (b == c) {"])
    #expect(
      edits("A.java", source).contains { $0 == (.logicalSwapped, "if (a.isSecure() || b == c) {") })
  }

  @Test func negationsConstantsAndBooleans() {
    let source = "if !expired && retries > 3 { enabled = true }\n"
    let mutants = edits("A.swift", source)
    #expect(
      mutants.contains { $0 == (.negationRemoved, "if expired && retries > 3 { enabled = true }") })
    #expect(
      mutants.contains { $0 == (.boundaryShifted, "if !expired && retries > 4 { enabled = true }") }
    )
    #expect(
      mutants.contains { $0 == (.boundaryShifted, "if !expired && retries > 2 { enabled = true }") }
    )
    #expect(
      mutants.contains { $0 == (.booleanFlipped, "if !expired && retries > 3 { enabled = false }") }
    )
    // A force unwrap and `!=` are not negations; digits inside a name are not constants.
    let other = edits("A.swift", "let v2 = x! != y\n")
    #expect(!other.contains { $0.0 == .negationRemoved || $0.0 == .boundaryShifted })
  }

  @Test func callStatementsAreRemovedButNotDeclarationsOrBlocks() {
    let source = """
      registerPlugin(WebAuthSessionPlugin.self)
      let value = compute()
      if ready {
      store.token = nil
      """
    let removed = edits("A.swift", source).filter { $0.0 == .statementRemoved }.map(\.1)
    #expect(removed == ["", ""])
    let mutation = MutationGenerator.mutations(file: "A.swift", text: source).filter {
      $0.operator == .statementRemoved
    }
    #expect(
      mutation.map(\.before) == ["registerPlugin(WebAuthSessionPlugin.self)", "store.token = nil"])
  }

  @Test func literalsThatAreDecisionsChangeByOneCharacterMessagesDoNot() {
    let source = """
      if scheme == "stmessages" {
        console.log("refused-scheme");
      }
      """
    let literals = edits("A.ts", source).filter { $0.0 == .literalChanged }.map(\.1)
    #expect(literals == ["if scheme == \"stmessage\" {"])
    let decision = edits("A.ts", "const scheme = \"stmessages\";\n").filter {
      $0.0 == .literalChanged
    }
    #expect(decision.map(\.1) == ["const scheme = \"stmessage\";"])
  }

  @Test func configurationIsMutatedByItsStructure() {
    let plist = """
      <!-- <key>NSAllowsArbitraryLoads</key> -->
      <key>NSAllowsArbitraryLoads</key>
      <false/>
      """
    let mutants = edits("Info.plist", plist)
    #expect(mutants.contains { $0 == (.booleanFlipped, "<true/>") })
    #expect(mutants.contains { $0 == (.literalChanged, "<key>NSAllowsArbitraryLoad</key>") })
    #expect(mutants.count == 2)
    let manifest = "<application android:usesCleartextTraffic=\"false\" xmlns:a=\"x\">\n"
    #expect(
      edits("AndroidManifest.xml", manifest).map(\.1) == [
        "<application android:usesCleartextTraffic=\"true\" xmlns:a=\"x\">"
      ])
    let env = "# comment\nPUSH_ENABLED=True\nOIDC_SCOPES=\"openid email\"\n"
    let envMutants = edits("backend.env", env)
    #expect(envMutants.contains { $0 == (.booleanFlipped, "PUSH_ENABLED=False") })
    #expect(envMutants.contains { $0 == (.literalChanged, "OIDC_SCOPES=\"openid emai\"") })
    #expect(envMutants.filter { $0.0 == .statementRemoved }.count == 2)
    let pbx =
      "\t\t\t\tCODE_SIGN_ENTITLEMENTS = App/App.entitlements;\n\t\t\t\tENABLE_BITCODE = NO;\n"
    #expect(
      edits("project.pbxproj", pbx).map(\.1) == [
        "\t\t\t\tCODE_SIGN_ENTITLEMENTS = App/App.entitlement;", "\t\t\t\tENABLE_BITCODE = YES;",
      ])
  }

  @Test func aMutantAppliesAtItsPlaceAndRefusesAStaleFile() throws {
    let source = "a = 1\nif x == y { go() }\n"
    let mutant = try #require(
      MutationGenerator.mutations(file: "A.swift", text: source).first {
        $0.operator == .equalityFlipped
      })
    #expect(mutant.line == 2)
    #expect(mutant.apply(to: source) == "a = 1\nif x != y { go() }\n")
    #expect(mutant.apply(to: "a = 10\nif x == y { go() }\n") == nil)
  }

  @Test func idsDoNotDependOnLineNumbersAndTheSampleIsSeeded() {
    let one = MutationGenerator.mutations(file: "A.swift", text: "if a < b { go() }\n")
    let shifted = MutationGenerator.mutations(
      file: "A.swift", text: "// moved\n\nif a < b { go() }\n")
    #expect(one.map(\.id) == shifted.map(\.id))
    #expect(Set(one.map(\.id)).count == one.count)
    let many = (0..<50).flatMap {
      MutationGenerator.mutations(file: "F\($0).swift", text: "if a < b && c { x = 1 }\n")
    }
    let first = sample(many, count: 20, seed: 1)
    #expect(first == sample(many, count: 20, seed: 1))
    #expect(first != sample(many, count: 20, seed: 2))
    #expect(first.count == 20)
    // One more candidate moves the sample by at most one mutant.
    let more = many + MutationGenerator.mutations(file: "G.swift", text: "if a < b { go() }\n")
    #expect(Set(first).subtracting(sample(more, count: 20, seed: 1)).count <= 2)
  }
}

/// Mutants/equivalent.json is reviewed by hand: each entry must still name a mutant the
/// engine generates from its file, and say why in a sentence.
@Suite struct RecordedEquivalentTests {
  struct Entry: Decodable {
    var id: String
    var file: String
    var reason: String
    var kind: String?
  }

  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  @Test func everyEntryNamesAGeneratedMutantAndItsReason() throws {
    let data = try Data(contentsOf: Self.root.appendingPathComponent("Mutants/equivalent.json"))
    let entries = try JSONDecoder().decode([Entry].self, from: data)
    #expect(!entries.isEmpty)
    #expect(Set(entries.map(\.id)).count == entries.count)
    for entry in entries {
      let text = try String(
        contentsOf: Self.root.appendingPathComponent(entry.file), encoding: .utf8)
      let ids = Set(MutationGenerator.mutations(file: entry.file, text: text).map(\.id))
      #expect(ids.contains(entry.id), "\(entry.id) is no longer a mutant of \(entry.file)")
      #expect(entry.reason.count > 20, "\(entry.id): say why")
      #expect(["equivalent", "loud"].contains(entry.kind ?? "equivalent"))
    }
  }
}
