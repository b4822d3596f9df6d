import Foundation
import QualifyCore

/// Where `NativeLogoutReader` looks first: the function's declaration, and the module-level
/// constants its body may name its URLs by.
extension NativeLogoutReader {
  /// Where `nativeLogout` is declared: `const nativeLogout = async () => {` or
  /// `function nativeLogout() {`.
  static func declaration(in tokens: [JSToken]) -> Int? {
    tokens.indices.first { index in
      guard tokens[index].text == "nativeLogout" else { return false }
      let before = tokens.at(index - 1)?.text
      return ["const", "let", "var", "function"].contains(before ?? "")
    }
  }

  /// `const NAME = "text"` at module level: the constants a body may name its URLs by.
  static func constants(in tokens: [JSToken], outside body: Range<Int>) -> [String: String] {
    var out: [String: String] = [:]
    for index in tokens.indices where !body.contains(index) && tokens[index].text == "const" {
      guard let name = tokens.at(index + 1), name.kind == .word, tokens.at(index + 2)?.text == "="
      else { continue }
      // The first literal of the initializer (`getRequestUrl("…")` or the literal itself).
      var cursor = index + 3
      while cursor < tokens.count, cursor < index + 8, tokens[cursor].text != ";" {
        if case .string(let text) = tokens[cursor].kind {
          out[name.text] = text
          break
        }
        cursor += 1
      }
    }
    return out
  }
}
