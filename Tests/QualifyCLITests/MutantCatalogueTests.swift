import Foundation
import QualifyTestSupport
import Testing

/// `make mutants` is not part of `make test` (it rebuilds), so a refactor could leave its
/// catalogue pointing at code that moved. Each source mutant's text must still be found
/// exactly once, where the catalogue says.
@Suite struct MutantCatalogueTests {
  @Test func everySourceMutantStillFindsItsText() throws {
    let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.root + "/Mutants/catalogue.json"))
    let catalogue = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let entries =
      (catalogue["mutants"] as? [[String: Any]] ?? [])
      + (catalogue["harmless"] as? [[String: Any]] ?? [])
    #expect(entries.count >= 45)
    var sources = 0
    for entry in entries {
      guard let file = entry["file"] as? String, file.hasPrefix("Sources/"),
        let find = entry["find"] as? String
      else { continue }
      sources += 1
      let text = try String(contentsOfFile: Fixtures.root + "/" + file, encoding: .utf8)
      #expect(
        text.components(separatedBy: find).count - 1 == 1,
        "mutant \(entry["id"] ?? "?"): its text is not found exactly once in \(file)")
    }
    #expect(sources >= 20)
  }
}
