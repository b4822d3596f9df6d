import Foundation
import QualifyCore

/// The storage key the native navigation policies read the active instance from, and the one
/// the web code writes it under (seed 004: `@capacitor/preferences` keeps `sovereign.activeUrl`
/// in UserDefaults as `CapacitorStorage.sovereign.activeUrl` on iOS, and in the
/// `CapacitorStorage` SharedPreferences file on Android). Each side names it as a literal or
/// a constant of its own file; what the other side writes is never assumed.
enum SharedStorageKeyReader {
  /// Capacitor Preferences' group, unless the web code configures another.
  static let defaultGroup = "CapacitorStorage"

  /// The key the web code writes the active instance under (a constant named `…ACTIVE…`
  /// holding a string, or the key of a `Preferences.set` in a function named `…Active…`),
  /// with the group it configures; nil when neither is found.
  static func web(_ web: CodeSearch) -> (key: Sourced<String>, group: String)? {
    let group =
      web.captures(#"Preferences\.configure\(\s*\{\s*group:\s*['"]([^'"]+)['"]"#).first?.value
      ?? defaultGroup
    if let constant = web.captures(#"(?:const|let)\s+\w*ACTIVE\w*\s*=\s*['"]([^'"]+)['"]"#)
      .first
    {
      return (constant, group)
    }
    if let literal = web.captures(
      #"Preferences\.(?:set|get)\(\s*\{\s*key:\s*['"]([^'"]*[Aa]ctive[^'"]*)['"]"#
    ).first {
      return (literal, group)
    }
    return nil
  }

  /// iOS: the key `UserDefaults…string(forKey:)` reads (a literal, or a `let` of the file).
  static func ios(_ ios: CodeSearch) -> Sourced<String>? {
    for read in ios.captures(#"UserDefaults\.standard\.string\(\s*forKey:\s*([^)]+)\)"#) {
      if let value = resolve(read, in: ios, declaration: #"let\s+"#) { return value }
    }
    return nil
  }

  /// Android: the SharedPreferences file and key the policy reads (`getSharedPreferences(G, …)
  /// …getString(K, …)`, literals or constants of the file), as `G/K`.
  static func android(_ android: CodeSearch) -> Sourced<String>? {
    guard let file = android.captures(#"getSharedPreferences\(\s*([^,]+),"#).first,
      let key = android.captures(#"\.getString\(\s*([^,]+),"#).first,
      let group = resolve(file, in: android, declaration: #"String\s+"#),
      let name = resolve(key, in: android, declaration: #"String\s+"#)
    else { return nil }
    return Sourced(group.value + "/" + name.value, at: name.location)
  }

  /// A literal as written, or a constant of the file that holds the expression
  /// (`Self.activeKey`, `ACTIVE_URL_KEY`); nil when it is computed.
  static func resolve(_ expression: Sourced<String>, in code: CodeSearch, declaration: String)
    -> Sourced<String>?
  {
    let text = expression.value.trimmingCharacters(in: .whitespaces)
    if text.hasPrefix("\""), text.hasSuffix("\""), text.count >= 2 {
      return Sourced(String(text.dropFirst().dropLast()), at: expression.location)
    }
    guard let name = text.split(separator: ".").last.map(String.init),
      name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
    else { return nil }
    let pattern =
      declaration + NSRegularExpression.escapedPattern(for: name)
      + #"\s*(?::\s*String\s*)?=\s*"([^"]*)""#
    return code.captures(pattern).first { $0.location?.file == expression.location?.file }
  }
}
