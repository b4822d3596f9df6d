import Foundation

/// Arrow functions (`(entry) => entry.trim()`) and the type annotations the parser steps over.
extension ScriptParser {
  /// After a `(`: the parameters of an arrow function (`(entry) =>`, `(o: string, i) =>`),
  /// its `=>` taken; nil, nothing taken, when the parenthesis is not an arrow's.
  mutating func arrowParameters() -> [String]? {
    let start = position
    var names: [String] = []
    while !take(")") {
      guard case .word(let name) = current else {
        position = start
        return nil
      }
      position += 1
      names.append(name)
      // A type annotation runs to the parameter's `,` or the list's `)`.
      if take(":") { _ = skipType(to: [",", ")"]) }
      if !take(","), current != .punct(")") {
        position = start
        return nil
      }
    }
    // `): Type =>` annotates what it returns; a `:` that is a conditional's is not one.
    if take(":"), !skipType(to: ["=>"], failingAt: [";", ",", "?", ":"]) {
      position = start
      return nil
    }
    guard take("=>") else {
      position = start
      return nil
    }
    return names
  }

  /// An arrow function's body: an expression (a braced body is not read).
  mutating func arrowBody(_ parameters: [String]) -> ScriptExpression? {
    guard current != .punct("{"), let body = expression() else { return nil }
    return .arrow(parameters, body)
  }

  /// Steps over a type annotation up to one of `ends` at its own depth (brackets and angle
  /// brackets nest); false, where it stopped, at one of `failingAt` or a bracket it did not
  /// open.
  mutating func skipType(to ends: [String], failingAt stops: [String] = []) -> Bool {
    var depth = 0
    while let token = current {
      if depth == 0, ends.map(ScriptToken.punct).contains(token) { return true }
      if [.punct("<"), .punct("("), .punct("["), .punct("{")].contains(token) { depth += 1 }
      if [.punct(">"), .punct(")"), .punct("]"), .punct("}")].contains(token) { depth -= 1 }
      if depth < 0 || depth == 0 && stops.map(ScriptToken.punct).contains(token) { return false }
      position += 1
    }
    return false
  }
}
