import Foundation
import QualifyTestSupport
import Scenarios
import Testing

@Suite struct DocumentationTests {
  @Test func theLanguageReferenceMatchesTheVocabulary() throws {
    let doc = try String(
      contentsOfFile: Fixtures.root + "/docs/scenario-language.md", encoding: .utf8)
    let begin = try #require(doc.range(of: "<!-- vocabulary:begin -->\n"))
    let end = try #require(doc.range(of: "<!-- vocabulary:end -->"))
    let section = String(doc[begin.upperBound..<end.lowerBound])
    #expect(
      section == VocabularyReference.markdown(),
      "docs/scenario-language.md is stale: regenerate its reference with `qualify list --vocabulary --markdown`"
    )
  }

  @Test func everyKeywordIsDocumented() throws {
    let doc = try String(
      contentsOfFile: Fixtures.root + "/docs/scenario-language.md", encoding: .utf8)
    for (keyword, _) in Vocabulary.keywords {
      #expect(doc.contains("`\(keyword)"), "keyword \(keyword) is not documented")
    }
    for kind in Vocabulary.browserKinds {
      #expect(doc.contains("`\(kind)`"), "browser kind \(kind) is not documented")
    }
  }

  @Test func shippedScenariosAllParse() throws {
    let scenarios = try ScenarioCatalogue.load(directory: Fixtures.root + "/Scenarios")
    #expect(scenarios.count >= 3)
    #expect(scenarios.allSatisfy { !$0.controls.isEmpty })
  }
}
