/// The vocabulary as Markdown: the reference section of docs/scenario-language.md is this
/// text, so the documentation cannot drift from what the parser accepts.
public enum VocabularyReference {
  public static func markdown() -> String {
    var out = "### Actions\n\n"
    out += "| statement | what it does |\n| --- | --- |\n"
    for action in Vocabulary.actions {
      out +=
        "| `\(escape(action.synopsis))` | \(escape(action.summary))\(mockOnly(action.powers)) Example: `\(escape(action.example))` |\n"
    }
    out += "\n### Expectations\n\n"
    out += "| statement | holds when |\n| --- | --- |\n"
    for expectation in Vocabulary.expectations {
      out +=
        "| `\(escape(expectation.synopsis))` | \(escape(expectation.summary)) Example: `\(escape(expectation.example))` |\n"
    }
    out += "\n### Mutations (for `control` blocks)\n\n"
    out += "| statement | what it changes | what it breaks |\n| --- | --- | --- |\n"
    for mutation in Vocabulary.mutations {
      out +=
        "| `\(escape(mutation.synopsis))` | \(escape(mutation.summary))\(mockOnly(mutation.powers)) | \(escape(mutation.breaks)) |\n"
    }
    out += "\n### Failure reasons (for `because`)\n\n"
    out += "| reason | detail | the step failed because |\n| --- | --- | --- |\n"
    for reason in FailureReason.all {
      out +=
        "| `\(reason.name)` | \(reason.detail.map(escape) ?? "") | \(escape(reason.summary)) |\n"
    }
    return out
  }

  /// ` Mock-only: writes-bucket.` — what does not run against a real part (`--stack`).
  public static func mockOnly(_ powers: Set<MockPower>) -> String {
    powers.isEmpty ? "" : " Mock-only: \(powers.sorted().map(\.rawValue).joined(separator: ", "))."
  }

  private static func escape(_ text: String) -> String {
    text.replacingOccurrences(of: "|", with: "\\|")
  }
}
