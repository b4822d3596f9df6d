import Foundation
import QualifyCore

/// Whether boot() honours the manager parameter it tests: with `?manage=1` on the URL, its
/// redirect to the active instance must not happen — by the redirect's own condition
/// (`!manage && …`) or by an earlier `if (manage) … return`. Android's back loads the local
/// page with that parameter (ADR 0006); a boot() that reads it and then ignores it redirects
/// back to the instance, and the manager is never reached.
extension LocalPageBootReader {
  /// True when the parameter keeps boot() from redirecting, false (with where) when boot()
  /// redirects with it too; nil without boot(), a redirect, or a condition qualify reads.
  func bootHonoursManager(parameter: String) -> Sourced<Bool>? {
    guard let block = bootBlock() else { return nil }
    let lines = block.body.split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
    // Locals holding the test: `const manage = params.has('manage')`.
    let locals = Set(
      InstanceDecisionReader.matches(#"(?:const|let)\s+(\w+)\s*=\s*[^;\n]*\.has\("#, block.body)
        .map(\.[0]))
    let present: (ScriptCondition, [String: String]) -> Bool? = { test, calls in
      guard case .truthy(.path(let path, _)) = test, path.count == 1 else { return nil }
      if let call = calls[path[0]] { return call.contains(".has(") ? true : nil }
      return locals.contains(path[0]) ? true : nil
    }
    for guardStatement in ScriptStatements.guards(block.body) {
      let end =
        lines[guardStatement.line...].firstIndex { $0.contains("return") } ?? guardStatement.line
      let span = lines[guardStatement.line...end]
      let navigates = span.contains { line in Self.navigates.contains(where: line.contains) }
      let range = RefusalCondition.range(guardStatement.condition, fixed: present)
      if !navigates {
        // An earlier return that the parameter always takes: the redirect is never reached.
        if let range, !range.canBeFalse, span.contains(where: { $0.contains("return") }) {
          return Sourced(
            true,
            at: FileLocation(file: block.file, line: block.line + guardStatement.line, column: 1))
        }
        continue
      }
      let at = FileLocation(file: block.file, line: block.line + guardStatement.line, column: 1)
      if let range {
        return Sourced(
          !range.canBeTrue, at: at,
          derivation: range.canBeTrue
            ? [
              "boot()'s redirect if (\(guardStatement.condition)) still holds with ?\(parameter)=1: boot() sends the manager back to the active instance"
            ] : [])
      }
      // Read, and no test of the parameter in it: the redirect ignores it.
      guard
        case .success = ScriptConditionParser.parse(
          RefusalCondition.abstractingCalls(guardStatement.condition).0)
      else { return nil }
      return Sourced(
        false, at: at,
        derivation: [
          "boot()'s redirect if (\(guardStatement.condition)) does not test ?\(parameter): boot() sends the manager back to the active instance"
        ])
    }
    return nil
  }
}
