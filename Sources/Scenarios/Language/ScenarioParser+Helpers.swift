import Artifacts
import Foundation
import QualifyCore

/// Argument checking and suggestions shared by the sections.
extension ParserState {
  func stringArgument(_ line: SourceLine, at index: Int, what: String) -> String? {
    guard index < line.tokens.count else {
      missing(line, "expected \(what) in double quotes")
      return nil
    }
    let token = line.tokens[index]
    guard token.kind == .string else {
      error(line, token, "expected \(what) in double quotes", hint: "write it as \"\(token.text)\"")
      return nil
    }
    return token.text
  }

  func expectEnd(_ line: SourceLine, after count: Int) {
    if line.tokens.count > count {
      let extra = line.tokens[count]
      error(line, extra, "unexpected '\(extra.text)' at the end of the line")
    }
  }

  func listWords(_ line: SourceLine) -> [Token] {
    line.tokens.dropFirst().filter { $0.kind == .word }
  }

  func parsePlatforms(_ line: SourceLine) -> [Platform]? {
    let words = listWords(line)
    if words.isEmpty {
      missing(line, "expected ios, android or both")
      return nil
    }
    var out: [Platform] = []
    for token in words {
      guard let platform = Platform(rawValue: token.text) else {
        error(
          line, token, "unknown platform '\(token.text)'",
          hint: suggestion(token.text, ["ios", "android"]) ?? "platforms are ios and android")
        return nil
      }
      out.append(platform)
    }
    return out
  }

  func parseChannels(_ line: SourceLine) -> [Channel]? {
    let words = listWords(line)
    if words.isEmpty {
      missing(line, "expected channels (dev, staging, prod, release)")
      return nil
    }
    var out: [Channel] = []
    for token in words {
      if token.text == "release" {
        out += Channel.allCases.filter(\.isRelease)
        continue
      }
      guard let channel = Channel(rawValue: token.text) else {
        error(
          line, token, "unknown channel '\(token.text)'",
          hint: suggestion(token.text, ["dev", "staging", "prod", "release"])
            ?? "channels are dev, staging, prod (release = staging and prod)")
        return nil
      }
      out.append(channel)
    }
    return out
  }

  func suggestion(_ word: String, _ candidates: [String]) -> String? {
    Suggestions.closest(to: word, among: candidates).map { "did you mean '\($0)'?" }
  }
}
