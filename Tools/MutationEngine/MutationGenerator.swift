/// Generates every mutant of one file that the operators of `MutationOperator` allow.
///
/// Operators are applied to code only (never inside comments or strings), to literals only
/// where they are literals, and to configuration by its structure (a JSON value, an XML
/// attribute or element, an environment line, an Xcode build setting). Candidates that are
/// known to be noise are left out: messages passed to a logger, an identifier's digits, a
/// generic's angle brackets.
public struct MutationGenerator {
  public let file: String
  public let language: SourceLanguage
  let text: LexedText
  var mutations: [Mutation] = []
  /// Offsets of the line starts, for line numbers and the before/after lines.
  let lineStarts: [Int]

  public init(file: String, text: String, language: SourceLanguage) {
    self.file = file
    self.language = language
    self.text = LexedText(text, language: language)
    var starts = [0]
    for (index, byte) in self.text.bytes.enumerated() where byte == UInt8(ascii: "\n") {
      starts.append(index + 1)
    }
    lineStarts = starts
  }

  /// Every mutant of the file, in file order.
  public static func mutations(file: String, text: String) -> [Mutation] {
    guard let language = SourceLanguage(path: file) else { return [] }
    var generator = MutationGenerator(file: file, text: text, language: language)
    generator.generate()
    return generator.mutations
  }

  mutating func generate() {
    switch language {
    case .swift, .kotlin, .java, .typescript, .groovy:
      codeOperators()
      codeStrings()
      statements()
    case .pbxproj: buildSettings()
    case .json: jsonValues()
    case .xml: xmlValues()
    case .env: envLines()
    }
  }

  // MARK: Text helpers

  var bytes: [UInt8] { text.bytes }

  func string(_ range: Range<Int>) -> String {
    String(decoding: bytes[range], as: UTF8.self)
  }

  func lineIndex(of offset: Int) -> Int {
    var low = 0
    var high = lineStarts.count - 1
    while low < high {
      let mid = (low + high + 1) / 2
      if lineStarts[mid] <= offset { low = mid } else { high = mid - 1 }
    }
    return low
  }

  func lineRange(_ index: Int) -> Range<Int> {
    let start = lineStarts[index]
    var end = start
    while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
    return start..<end
  }

  mutating func add(_ op: MutationOperator, _ range: Range<Int>, _ replacement: String) {
    let original = string(range)
    guard original != replacement else { return }
    let line = lineIndex(of: range.lowerBound)
    let lineRange = lineRange(line)
    guard range.upperBound <= max(lineRange.upperBound, range.lowerBound) || op == .statementRemoved
    else { return }
    let before = string(lineRange)
    let column = range.lowerBound - lineRange.lowerBound
    let prefix = string(lineRange.lowerBound..<range.lowerBound)
    let suffix = string(min(range.upperBound, lineRange.upperBound)..<lineRange.upperBound)
    let after = prefix + replacement + suffix
    // The line's text and the edit, not its number: the id survives edits elsewhere.
    let occurrence = mutations.filter {
      $0.before == before && $0.operator == op && $0.replacement == replacement
    }.count
    let key = [
      file, op.rawValue, before.trimmingSpaces, String(column), original, replacement,
      String(occurrence),
    ].joined(separator: "\u{1F}")
    let id = String(stableHash(key), radix: 16)
    mutations.append(
      Mutation(
        id: String(repeating: "0", count: 16 - id.count) + id, file: file, line: line + 1,
        operator: op, before: before, after: after, offset: range.lowerBound,
        length: range.count, original: original, replacement: replacement))
  }

  static func isIdentifier(_ byte: UInt8) -> Bool {
    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A)
      || (byte >= 0x61 && byte <= 0x7A) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
  }

  static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

  func isCode(_ index: Int) -> Bool {
    index >= 0 && index < bytes.count && text.regions[index] == .code
  }

  func matches(_ literal: String, at index: Int) -> Bool {
    let pattern = Array(literal.utf8)
    guard index >= 0, index + pattern.count <= bytes.count else { return false }
    for (offset, byte) in pattern.enumerated() {
      guard bytes[index + offset] == byte, isCode(index + offset) else { return false }
    }
    return true
  }

  /// The line holds a message for people (a log call, an error): its literals are not
  /// decisions.
  func isMessageLine(_ offset: Int) -> Bool {
    // Only the line's code: a literal such as "stmessages" is not a message marker.
    let range = lineRange(lineIndex(of: offset))
    let line = String(
      decoding: range.filter { text.regions[$0] == .code }.map { bytes[$0] }, as: UTF8.self)
    let markers = [
      "print(", "Log.", "NSLog(", "console.", "logger.", "os_log(", "fatalError(",
      "precondition(", "assertionFailure(", "throw ", "note(", "decision(", "event(",
      "record(", "evidence(",
    ]
    return markers.contains { line.contains($0) }
  }
}

extension String {
  var trimmingSpaces: String {
    var slice = Substring(self)
    while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
    while let last = slice.last, last == " " || last == "\t" || last == "\r" {
      slice = slice.dropLast()
    }
    return String(slice)
  }
}
