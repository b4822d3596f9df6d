import Foundation
import QualifyCore

/// Whether boot() honours the manager parameter it tests: with `?manage=1` on the URL, its
/// redirect to the active instance must not happen — by a condition around the redirect
/// (`!manage && …`, an `else` of `if (manage)`) or by an earlier `if (manage) … return`.
/// Android's back loads the local page with that parameter (ADR 0006); a boot() that
/// ignores it redirects back to the instance, and the manager is never reached.
extension LocalPageBootReader {
  /// True when the parameter keeps boot() from redirecting, false (with where) when boot()
  /// redirects with it too; nil without boot() or a redirect, or when a condition tests the
  /// parameter in a way qualify does not read.
  func bootHonoursManager(parameter: String) -> Sourced<Bool>? {
    guard let block = bootBlock() else { return nil }
    let body = block.body
    // The parameter as written: its literal, or a constant holding it (`MANAGE_PARAM`).
    let names = stringConstants().filter { $0.value == parameter }.map(\.key)
    let mentions = { (text: String) -> Bool in
      text.contains("'\(parameter)'") || text.contains("\"\(parameter)\"")
        || names.contains {
          text.range(of: #"(?<![\w$])"# + $0 + #"(?![\w$])"#, options: .regularExpression) != nil
        }
    }
    guard let redirect = redirectIndex(in: body) else { return nil }
    let line = body[..<redirect].filter { $0 == "\n" }.count
    let at = FileLocation(file: block.file, line: block.line + line, column: 1)
    // Locals of the parameter: `const manage = params.has('manage')`, `!params.has(…)`.
    var locals: [String: Bool?] = [:]
    for found in InstanceDecisionReader.matches(
      #"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::\s*[^=\n]+)?=\s*([^;\n]+)"#, body)
    where mentions(found[1]) && locals[found[0]] == nil {
      locals[found[0]] = Self.presentValue(found[1])
    }
    var unread = false
    let present: (ScriptCondition, [String: String]) -> Bool? = { test, calls in
      switch test {
      case .truthy(.path(let path, _)) where path.count == 1:
        if let call = calls[path[0]] {
          guard mentions(call) else { return nil }
          if let value = Self.presentValue(call) { return value }
          unread = true
          return nil
        }
        guard let value = locals[path[0]] else { return nil }
        if value == nil { unread = true }
        return value ?? nil
      case .compare(let a, let comparison, let b):
        // `params.get('manage') === '1'`, `… !== null`: get() gives "1" with the parameter.
        for (call, other) in [(a, b), (b, a)] {
          guard case .path(let path, _) = call, path.count == 1, let text = calls[path[0]],
            mentions(text), text.contains(".get(")
          else { continue }
          let equal: Bool
          switch other {
          case .literal(.string(let value)): equal = value == "1"
          case .literal(.null), .literal(.undefined): equal = false
          default:
            unread = true
            return nil
          }
          switch comparison {
          case .strictEqual, .equal: return equal
          case .strictNotEqual, .notEqual: return !equal
          default:
            unread = true
            return nil
          }
        }
        return nil
      default:
        return nil
      }
    }
    var tested = false
    for (condition, wanted) in BranchGuards.guards(of: redirect, in: body) {
      if let range = RefusalCondition.range(condition, fixed: present) {
        tested = true
        // The parameter alone decides this condition against the redirect.
        if wanted ? !range.canBeTrue : !range.canBeFalse { return Sourced(true, at: at) }
      } else if mentions(condition) {
        unread = true
      }
    }
    if unread { return nil }
    return Sourced(
      false, at: at,
      derivation: [
        tested
          ? "boot()'s redirect still runs with ?\(parameter)=1: no condition around it is false then — boot() sends the manager back to the active instance"
          : "boot()'s redirect does not test ?\(parameter): boot() sends the manager back to the active instance"
      ])
  }

  /// Where boot() navigates to the active instance: the navigation naming the variable
  /// boot() awaited the active instance into, or the first navigation without one.
  func redirectIndex(in body: String) -> String.Index? {
    let active = InstanceDecisionReader.matches(
      #"(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::\s*[^=\n]+)?=\s*await\s+[\w$.]*[Aa]ctive[\w$]*\("#,
      body
    ).first?[0]
    var first: String.Index?
    for call in Self.navigates {
      var search = body.startIndex
      while let found = body.range(of: call, range: search..<body.endIndex) {
        search = found.upperBound
        let rest = body[found.upperBound...].prefix { $0 != "\n" && $0 != ";" }
        if let active,
          rest.range(of: #"(?<![\w$])"# + active + #"(?![\w$])"#, options: .regularExpression)
            == nil
        {
          continue
        }
        if found.lowerBound < first ?? body.endIndex { first = found.lowerBound }
      }
    }
    return first
  }

  /// What a test of the parameter gives when the URL carries it (`?manage=1`): `has(…)`,
  /// `get(…)` (truthy, `=== '1'`, `!== null`), `includes(…)`, each negated by leading `!`s;
  /// nil for anything else.
  static func presentValue(_ text: String) -> Bool? {
    var rest = text.trimmingCharacters(in: .whitespaces)
    var negated = false
    while rest.hasPrefix("!") {
      negated.toggle()
      rest = String(rest.dropFirst()).trimmingCharacters(in: .whitespaces)
    }
    let call = #"\.(?:has|get|includes)\(\s*[^()]*\)"#
    let forms = [
      call + #"$"#,
      call + #"\s*(?:===?\s*['"](?:1|true)['"]|!==?\s*null)$"#,
    ]
    guard forms.contains(where: { rest.range(of: $0, options: .regularExpression) != nil })
    else { return nil }
    return !negated
  }
}
