import Foundation
import QualifyCore

/// iOS's back swipe, read from the app's Swift code as the configuration compiles it.
extension BuildReader {
  /// Whether the app's Swift code, as this configuration compiles it (`#if DEBUG` is out of
  /// a Release build), turns the WebView's back swipe on and never off; nil without Swift
  /// sources.
  func readBackGesture(conditions: Set<String>, compiled files: Set<String>?) -> Sourced<Bool>? {
    let folder = XcodeProject.join(profile.capacitorRoot, "ios/App/App")
    let pattern = #"allowsBackForwardNavigationGestures\s*=\s*(\w+)"#
    var on: Sourced<Bool>?
    var compiledOut: Sourced<Bool>?
    var home: String?
    for path in repository.files(under: folder, suffix: ".swift")
    where files?.contains(path) ?? true {
      guard let (text, file) = (try? repository.text(path)).flatMap({ $0 }) else { continue }
      if home == nil || text.contains("CAPBridgeViewController") { home = file }
      // The compiled lines leave the directives out: matched to the source by line number.
      let compiled = Dictionary(
        SourceText.compiledSwiftLines(text, conditions: conditions), uniquingKeysWith: { a, _ in a }
      )
      for (index, raw) in SourceText.codeLines(text) {
        guard let value = SourceText.capture(pattern, in: raw) else { continue }
        let at = FileLocation(file: file, line: index + 1, column: 1)
        if SourceText.capture(pattern, in: compiled[index] ?? "") == nil {
          if value == "true" {
            compiledOut = Sourced(
              false, at: at,
              derivation: [
                "set inside a condition the \(xcodeConfiguration) configuration compiles out (#if DEBUG)"
              ])
          }
          continue
        }
        // A variable or a call is not read: only a literal turns the swipe off.
        if value == "false" {
          return Sourced(
            false, at: at, derivation: ["allowsBackForwardNavigationGestures = \(value)"])
        }
        on =
          on
          ?? Sourced(
            true, at: at,
            derivation: value == "true"
              ? [] : ["set to \(value), taken as true: qualify does not evaluate it"])
      }
    }
    guard let home else { return nil }
    return on ?? compiledOut
      ?? Sourced(
        false, at: FileLocation(file: home, line: 0, column: 1),
        derivation: [
          "nothing sets allowsBackForwardNavigationGestures, and WKWebView's default is false"
        ])
  }
}
