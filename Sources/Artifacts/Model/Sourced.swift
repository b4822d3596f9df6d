import QualifyCore

/// A value read from an app file, with where it was read, so that a failing check can name
/// the file and the offending value.
public struct Sourced<Value: Sendable>: Sendable {
  public var value: Value
  public var location: FileLocation?
  /// How a value written with build variables resolved, one step a sentence
  /// (`AUTH_CALLBACK_SCHEME is unset: its default "stmessages" applies`); empty for a literal.
  public var derivation: [String] = []

  public init(_ value: Value, at location: FileLocation?, derivation: [String] = []) {
    self.value = value
    self.location = location
    self.derivation = derivation
  }

  /// The derivation as a clause for messages, empty for a literal.
  public var because: String {
    derivation.isEmpty ? "" : " (" + derivation.joined(separator: "; ") + ")"
  }

  /// `path:line` (or the path alone, or "(mutation)") for messages.
  public var origin: String {
    guard let location else { return "(no file)" }
    return location.line > 0 ? "\(location.file):\(location.line)" : location.file
  }
}

extension Sourced: Equatable where Value: Equatable {
  public static func == (a: Sourced, b: Sourced) -> Bool {
    a.value == b.value && a.location == b.location
  }
}
