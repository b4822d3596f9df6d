import Scenarios
import Testing

/// The parser takes the first pack that knows a name, so a name two packs define leaves the
/// second definition unreachable: a scenario would run the other pack's statement.
@Suite struct PackNamesTests {
  /// Each name with the packs that define it, kept only where more than one pack does.
  private static func shared(_ names: [(pack: String, name: String)]) -> [String: [String]] {
    Dictionary(grouping: names, by: \.name).mapValues { $0.map(\.pack) }.filter {
      $0.value.count > 1
    }
  }

  @Test func mutationNamesAreUniqueAcrossPacks() {
    let names = Vocabulary.packs.flatMap { pack in pack.mutations.map { (pack.name, $0.name) } }
    #expect(Self.shared(names) == [:])
  }

  @Test func actionPhrasesAreUniqueAcrossPacks() {
    let names = Vocabulary.packs.flatMap { pack in
      pack.actions.map { (pack.name, "\($0.actor) \($0.phrase.joined(separator: " "))") }
    }
    #expect(Self.shared(names) == [:])
  }

  @Test func expectationPhrasesAreUniqueAcrossPacks() {
    let names = Vocabulary.packs.flatMap { pack in
      pack.expectations.map { (pack.name, $0.phrase.joined(separator: " ")) }
    }
    #expect(Self.shared(names) == [:])
  }
}
