import Foundation
import QualifyCore
import Testing

@testable import Results

/// Text from app files and scenario file names reaches people through four writers; none of
/// them lets it become markup, close a code span, or reorder what the reader sees.
@Suite struct InertTextTests {
  static let override = "\u{202E}"
  static let isolate = "\u{2067}"

  @Test func bidiControlsAreShownNotObeyedInHTMLJUnitAndMarkdown() {
    let hostile = "admin\(Self.override)gnp.exe\(Self.isolate)x"
    for written in [
      HTMLText.escape(hostile), JUnitWriter.xml(hostile), MarkdownSummary.text(hostile),
      MarkdownSummary.code(hostile),
    ] {
      #expect(!written.unicodeScalars.contains { BidiControls.contains($0) }, "\(written)")
      #expect(written.contains("\\u{202E}"), "\(written)")
    }
  }

  @Test(arguments: [
    "[click](https://evil.example)", "![x](https://evil.example/p.png)", "# heading",
    "**bold** _em_ ~~strike~~", "a | b", "<img src=x onerror=alert(1)>", "line\n- item",
  ])
  func markdownSyntaxInAppTextIsEscaped(text: String) {
    let written = MarkdownSummary.text(text)
    for unescaped in ["](", "![", "**", "~~", "<img", "\n"] {
      #expect(!written.contains(unescaped), "\(written)")
    }
    #expect(!written.hasPrefix("#"))
    #expect(!written.contains(" | "), "\(written)")
  }

  @Test func nothingClosesACodeSpanOrAFence() {
    let id = "guards/x` [pwn](https://evil.example) `\n```\n# fence closed"
    let written = MarkdownSummary.code(id)
    #expect(!written.contains("`"))
    #expect(!written.contains("\n"))
  }
}
