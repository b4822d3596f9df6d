import Foundation
import QualifyCore

/// `parseInstanceResponse(status, body)` of a multi-instance shell's web code (seed 004), read
/// as written: each `if (…) return null;` is a rejection, evaluated against the answer a
/// server gives, so a test written the wrong way (`&&` for `||`, `===` for `!==`) accepts or
/// refuses in the simulated onboarding what it would on the device.
public struct InstanceResponseCheck: Sendable {
  public var statusName: String
  public var bodyName: String
  /// `const fields = body as Record<string, unknown>`: a name of the body.
  public var aliases: Set<String> = []
  public var rejections: [Sourced<ScriptCondition>] = []
  /// The field the returned info takes the instance's name from.
  public var nameField = "instanceName"

  /// The instance's name when the check accepts the answer, nil when it returns null (or
  /// throws, which `checkInstance` turns into null).
  public func name(status: Int, body: Any?) -> String? {
    let value = ScriptValue(json: body)
    func lookup(_ path: [String]) -> ScriptValue? {
      guard let root = path.first else { return .undefined }
      var current: ScriptValue
      if root == statusName {
        current = .number(Double(status))
      } else if root == bodyName || aliases.contains(root) {
        current = value
      } else {
        return .undefined
      }
      for name in path.dropFirst() {
        guard let next = current.member(name) else { return nil }
        current = next
      }
      return current
    }
    for rejection in rejections {
      guard let rejects = rejection.value.evaluate(lookup), !rejects else { return nil }
    }
    switch value.member(nameField) {
    case .string(let name): return name
    case nil: return nil
    default: return "undefined"
    }
  }

  /// Reads the function from its body's text (the lines after its header).
  static func read(header: String, body: String, at location: FileLocation?)
    -> ReadDecision<InstanceResponseCheck>
  {
    let parameters = ScriptStatements.parameters(header)
    guard parameters.count == 2 else {
      return .unverified("parseInstanceResponse does not take (status, body)")
    }
    var check = InstanceResponseCheck(statusName: parameters[0], bodyName: parameters[1])
    for alias in InstanceDecisionReader.matches(#"(?:const|let)\s+(\w+)\s*=\s*(\w+)\s+as\b"#, body)
    where alias[1] == check.bodyName || check.aliases.contains(alias[1]) {
      check.aliases.insert(alias[0])
    }
    if let name = InstanceDecisionReader.matches(#"instanceName:\s*\w+\.(\w+)"#, body).first {
      check.nameField = name[0]
    }
    for statement in ScriptStatements.guards(body) {
      guard statement.returns == "null" else {
        return .unverified("`if (\(statement.condition))` returns \(statement.returns)")
      }
      switch ScriptConditionParser.parse(statement.condition) {
      case .success(let condition):
        check.rejections.append(
          Sourced(
            condition,
            at: location.map {
              FileLocation(file: $0.file, line: $0.line + statement.line, column: 1)
            }))
      case .failure(let error): return .unverified(error.reason)
      }
    }
    guard !check.rejections.isEmpty else { return .unverified("no `if (…) return null;` to read") }
    return .read(check)
  }
}

/// The submit handler's early returns in a multi-instance shell's onboarding: the conditions
/// on the normalised origin and the checked instance under which it adds nothing.
public struct OnboardingAddGate: Sendable {
  public var originName: String
  public var infoName: String
  public var returns: [Sourced<ScriptCondition>] = []

  /// Whether the handler goes on to add the instance; nil when a condition throws.
  public func adds(origin: String?, info: String?) -> Bool? {
    func lookup(_ path: [String]) -> ScriptValue? {
      let root: ScriptValue
      switch path.first {
      case originName: root = origin.map { .string($0) } ?? .null
      case infoName: root = info.map { .object(["instanceName": .string($0)]) } ?? .null
      default: return .undefined
      }
      var current = root
      for name in path.dropFirst() {
        guard let next = current.member(name) else { return nil }
        current = next
      }
      return current
    }
    for condition in returns {
      guard let returnsEarly = condition.value.evaluate(lookup) else { return nil }
      if returnsEarly { return false }
    }
    // `addInstance({ label: info.instanceName })` with info null throws: nothing is added.
    return origin != nil && info != nil
  }

  /// Reads the handler around `normalizeInstanceUrl(` and `checkInstance(`.
  static func read(_ text: String, at location: FileLocation?) -> ReadDecision<OnboardingAddGate> {
    guard
      let origin = InstanceDecisionReader.matches(
        #"(?:const|let)\s+(\w+)\s*=\s*normalizeInstanceUrl\("#, text
      ).first?[0],
      let info = InstanceDecisionReader.matches(
        #"(?:const|let)\s+(\w+)\s*=[^;\n]*checkInstance\("#, text
      ).first?[0]
    else { return .unverified("the submit handler's origin and instance check are not named") }
    var gate = OnboardingAddGate(originName: origin, infoName: info)
    for statement in ScriptStatements.guards(text) where statement.returns.isEmpty {
      let names = Set(
        InstanceDecisionReader.matches(#"([A-Za-z_$][\w$]*)"#, statement.condition).map { $0[0] })
      guard names.contains(origin) || names.contains(info) else { continue }
      switch ScriptConditionParser.parse(statement.condition) {
      case .success(let condition):
        gate.returns.append(
          Sourced(
            condition,
            at: location.map {
              FileLocation(file: $0.file, line: $0.line + statement.line, column: 1)
            }))
      case .failure(let error): return .unverified(error.reason)
      }
    }
    guard !gate.returns.isEmpty else {
      return .unverified("the submit handler returns early on no test of \(origin) or \(info)")
    }
    return .read(gate)
  }
}

enum InstanceDecisionReader {
  /// Every match's capture groups.
  static func matches(_ pattern: String, _ text: String) -> [[String]] {
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
    return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { match in
      (1..<match.numberOfRanges).map {
        Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? ""
      }
    }
  }
}
