import Foundation
import QualifyCore

/// What Android's back key does on a loaded instance, read from the handler the activity
/// overrides (`dispatchKeyEvent`, `onBackPressed`, an `OnBackPressedCallback`'s
/// `handleOnBackPressed`): the page its `loadUrl(…)` loads, with the string constants it
/// names resolved across the app's Java and Kotlin sources. Seed 004 (ADR 0006): back loads
/// the local page with `?manage=1` — the parameter boot() tests, whatever its name — which
/// boot() honours by showing the manager; the local page without it is a cold start, and
/// boot() redirects to the active instance again.
struct AndroidBackReader {
  let android: CodeSearch

  static let handlers = ["dispatchKeyEvent(", "handleOnBackPressed(", "onBackPressed("]

  /// Whether back loads the manager (false, with where, when the handler loads something
  /// else or nothing; nil without Android sources), and the URL expression it loads when
  /// that is the local page without `manage`.
  /// `parameter` is the query parameter boot() tests to show the manager (`manage` when it
  /// was not read): the back URL must carry it.
  func read(parameter: String = "manage") -> (
    loadsManager: Sourced<Bool>?, plainLocal: Sourced<String>?
  ) {
    let carries = #"[?&]"# + NSRegularExpression.escapedPattern(for: parameter) + #"(?:=|&|$)"#
    guard let first = android.files.first else { return (nil, nil) }
    let constants = stringConstants()
    var handler: (file: String, line: Int, body: String)?
    for opener in Self.handlers {
      for block in android.blocks(after: opener) {
        handler = handler ?? block
        let loads = Self.loadUrlArguments(block.body)
        guard !loads.isEmpty else { continue }
        for (argument, offset) in loads
        where resolves(argument, constants).range(of: carries, options: .regularExpression) != nil {
          return (
            Sourced(true, at: FileLocation(file: block.file, line: block.line + offset, column: 1)),
            nil
          )
        }
        let (argument, offset) = loads[0]
        let at = FileLocation(file: block.file, line: block.line + offset, column: 1)
        return (
          Sourced(
            false, at: at,
            derivation: [
              "the back handler loads \(argument), without ?\(parameter)=1: boot() redirects to the active instance"
            ]),
          Sourced(argument, at: at)
        )
      }
    }
    if let handler {
      return (
        Sourced(
          false, at: FileLocation(file: handler.file, line: handler.line, column: 1),
          derivation: ["the back handler loads no page"]),
        nil
      )
    }
    let home =
      android.files.first { $0.lines.contains { $0.1.contains("BridgeActivity") } }?.file
      ?? first.file
    return (
      Sourced(
        false, at: FileLocation(file: home, line: 0, column: 1),
        derivation: ["no dispatchKeyEvent, onBackPressed or OnBackPressedCallback"]),
      nil
    )
  }

  /// The string literals an argument is made of, its constants replaced by their values.
  func resolves(_ argument: String, _ constants: [String: String]) -> String {
    var out = InstanceDecisionReader.matches(#""((?:[^"\\]|\\.)*)""#, argument).map(\.[0])
      .joined()
    for name in InstanceDecisionReader.matches(#"\b([A-Za-z_]\w*)\b"#, argument).map(\.[0]) {
      if let value = constants[name] { out += value }
    }
    return out
  }

  /// `static final String NAME = "…"` (Java), `const val NAME = "…"` and `val NAME = "…"`
  /// (Kotlin), in every source file: a reference through its class (`Urls.MANAGE`) is
  /// looked up by its last name.
  func stringConstants() -> [String: String] {
    var out: [String: String] = [:]
    for found in android.captures(
      #"(?:final\s+String|const\s+val|val)\s+([A-Za-z_]\w*)\s*(?::\s*String\s*)?=\s*"([^"]*)""#,
      groups: 2)
    where out[found.value[0]] == nil {
      out[found.value[0]] = found.value[1]
    }
    return out
  }

  /// Each `loadUrl(…)`'s argument in `body`, with its line's offset from the body's first.
  static func loadUrlArguments(_ body: String) -> [(String, Int)] {
    var out: [(String, Int)] = []
    var search = body.startIndex
    while let range = body.range(of: "loadUrl(", range: search..<body.endIndex) {
      var depth = 1
      var index = range.upperBound
      while index < body.endIndex, depth > 0 {
        if body[index] == "(" { depth += 1 }
        if body[index] == ")" { depth -= 1 }
        if depth > 0 { index = body.index(after: index) }
      }
      let argument = body[range.upperBound..<index].trimmingCharacters(in: .whitespacesAndNewlines)
      let offset = body[body.startIndex..<range.lowerBound].filter { $0 == "\n" }.count
      out.append((argument, offset))
      search = index < body.endIndex ? body.index(after: index) : body.endIndex
    }
    return out
  }
}
