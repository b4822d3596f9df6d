import Foundation
import QualifyCore

/// The Origins a handoff route's check lets through, as its code builds the list, so that the
/// list can be evaluated on the server's env: OpenMapX's `allowedOrigins()` takes
/// `MOBILE_AUTH_ALLOWED_ORIGINS` split at its commas, else `WEB_ORIGIN`, else a development
/// default (`http://localhost:3000`) — a release whose server env sets neither refuses the
/// web app's own page, and no sign-in handoff is ever redeemed.
public struct OriginAllowlist: Sendable, Equatable {
  /// One place the list may come from; the sources are tried in order until one gives a value.
  public struct Source: Sendable, Equatable {
    /// The env variable read (nil: a list written in the code).
    public var variable: String?
    /// What the code falls back to when the variable is unset ("" when it has none).
    public var fallback: String
    /// `??`: a variable set to "" is taken as it is (an empty list); with `||` or a helper
    /// (`envString`), "" falls through like an unset variable.
    public var keepsEmpty: Bool
    /// The value is split at its commas (`.split(",")`), else it is one Origin.
    public var splits: Bool
  }

  public var sources: [Source]
  /// Where the list is built: the constant, or the function that returns it.
  public var location: FileLocation

  /// The env variables the list reads, in order.
  public var variables: [String] { sources.compactMap(\.variable) }

  /// The list on the server's `env`; nil `env` (none was given) leaves each variable unset,
  /// so the code's fallbacks decide.
  public func origins(env: [String: String]?) -> [String] {
    for source in sources {
      let set = source.variable.flatMap { env?[$0] }
      let value = set.flatMap { $0.isEmpty && !source.keepsEmpty ? nil : $0 } ?? source.fallback
      if value.isEmpty {
        if source.keepsEmpty && set != nil { return [] }
        continue
      }
      guard source.splits else { return [value] }
      return value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
    }
    return []
  }
}

enum OriginAllowlistReader {
  /// The list the Origin check looks the request's Origin up in — a constant
  /// (`WEB_ORIGINS.includes(origin)`) or what a function returns
  /// (`allowedOrigins().includes(origin)`) — read where the routes' file builds it. Nil when
  /// the check makes no single lookup; a failure names what was not evaluated.
  static func read(check body: String, local: String, in text: String, file: String)
    -> Result<OriginAllowlist, AllowlistUnread>?
  {
    let receivers = InstanceDecisionReader.matches(
      #"([\w$]+(?:\(\s*\))?)\s*\.\s*(?:includes|has)\(\s*"#
        + NSRegularExpression.escapedPattern(for: local) + #"\s*\)"#, body
    ).compactMap(\.first)
    guard receivers.count == 1, let receiver = receivers.first else { return nil }
    let name = String(receiver.prefix { $0 != "(" && !$0.isWhitespace })
    let lines = text.components(separatedBy: "\n")
    func location(of pattern: String) -> FileLocation {
      let line = lines.firstIndex { $0.range(of: pattern, options: .regularExpression) != nil }
      return FileLocation(file: file, line: line.map { $0 + 1 } ?? 0, column: 1)
    }
    let code: String
    let at: FileLocation
    if receiver.hasSuffix(")") {
      guard let function = ScriptStatements.functions(in: text).first(where: { $0.name == name })
      else {
        return .failure(AllowlistUnread(name: receiver, why: "its function is not in the file"))
      }
      code = function.body
      at = location(of: #"function\s+"# + name + #"\b|(?:const|let)\s+"# + name + #"\s*="#)
    } else {
      guard
        let written = InstanceDecisionReader.matches(
          #"(?:const|let)\s+"# + NSRegularExpression.escapedPattern(for: name)
            + #"\s*(?::[^=]+)?=\s*([^;]+);"#, text
        ).first?.first
      else { return .failure(AllowlistUnread(name: name, why: "it is not a constant of the file")) }
      code = written
      at = location(of: #"(?:const|let)\s+"# + name + #"\b"#)
    }
    let sources = sources(in: code)
    guard !sources.isEmpty else {
      return .failure(
        AllowlistUnread(name: receiver, why: "it is built in a way qualify does not evaluate"))
    }
    return .success(OriginAllowlist(sources: sources, location: at))
  }

  /// The env reads of `code` in order — `process.env.X ?? "…"`, `process.env.X || "…"`,
  /// `envString("X", "…")` — each split at its commas when the code splits what it read (the
  /// read itself, or the local bound to it); else a list written out (`["https://…"]`).
  static func sources(in code: String) -> [OriginAllowlist.Source] {
    let forms: [(pattern: String, keepsEmpty: Bool?)] = [
      (#"process\.env\.([A-Z0-9_]+)\s*(\?\?|\|\|)\s*["'`]([^"'`]*)["'`]"#, nil),
      (#"process\.env\.([A-Z0-9_]+)\b()()(?!\s*(?:\?\?|\|\|))"#, false),
      (#"\b\w*[eE]nv\w*\(\s*["']([A-Z0-9_]+)["']()\s*(?:,\s*["']([^"']*)["']\s*)?\)"#, false),
    ]
    var found: [(Int, OriginAllowlist.Source)] = []
    let nsCode = code as NSString
    for form in forms {
      guard let regex = try? NSRegularExpression(pattern: form.pattern) else { continue }
      for match in regex.matches(in: code, range: NSRange(location: 0, length: nsCode.length)) {
        func group(_ index: Int) -> String {
          let range = match.range(at: index)
          return range.location == NSNotFound ? "" : nsCode.substring(with: range)
        }
        // The read's statement, to the end of its line's chain (`;`), and its local if bound.
        let rest = nsCode.substring(from: match.range.location)
        let statement = String(rest.prefix { $0 != ";" })
        let before = nsCode.substring(to: match.range.location)
        let local = InstanceDecisionReader.matches(#"(?:const|let)\s+(\w+)\s*=\s*\(?\s*$"#, before)
          .first?.first
        let splits =
          statement.range(of: #"\.\s*split\(\s*["'],"#, options: .regularExpression) != nil
          || local.map {
            code.range(of: #"\b"# + $0 + #"\s*\.\s*split\(\s*["'],"#, options: .regularExpression)
              != nil
          } ?? false
        found.append(
          (
            match.range.location,
            OriginAllowlist.Source(
              variable: group(1), fallback: group(3),
              keepsEmpty: form.keepsEmpty ?? (group(2) == "??"),
              splits: splits)
          ))
      }
    }
    if found.isEmpty,
      let listed = InstanceDecisionReader.matches(#"\[\s*((?:["'][^"']*["']\s*,?\s*)+)\]"#, code)
        .first?.first
    {
      let origins = InstanceDecisionReader.matches(#"["']([^"']*)["']"#, listed).compactMap(\.first)
      return [
        OriginAllowlist.Source(
          variable: nil, fallback: origins.joined(separator: ","), keepsEmpty: false, splits: true)
      ]
    }
    return found.sorted { $0.0 < $1.0 }.map(\.1)
  }
}

/// A list of Origins qualify did not evaluate, and why.
public struct AllowlistUnread: Error, Sendable, Equatable {
  public var name: String
  public var why: String
}
