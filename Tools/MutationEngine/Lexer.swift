/// What a byte of a source file belongs to: the engine mutates operators only in code, and
/// literals only where they are literals.
enum Region: UInt8 {
  case code, comment, string
}

/// A string literal's bytes, its quotes included.
struct StringSpan {
  var start: Int
  var end: Int
  /// The first and one-past-the-last byte of its content.
  var contentStart: Int
  var contentEnd: Int
}

/// A light lexer of C-family sources: enough to tell code from comments and strings, not a
/// parser. A construct it misreads (a regular expression literal, a raw string) costs at worst
/// a mutant that does not compile, which the judge reports as stillborn.
struct LexedText {
  let bytes: [UInt8]
  var regions: [Region]
  var strings: [StringSpan] = []
  /// The string span that starts or ends at an offset.
  var stringStarting: [Int: Int] = [:]
  var stringEnding: [Int: Int] = [:]

  init(_ text: String, language: SourceLanguage) {
    bytes = Array(text.utf8)
    regions = Array(repeating: .code, count: bytes.count)
    switch language {
    case .swift, .kotlin, .java, .typescript, .groovy, .pbxproj: lexCFamily(language)
    case .json: lexQuotedOnly()
    case .xml, .env: break
    }
    for (index, span) in strings.enumerated() {
      stringStarting[span.start] = index
      stringEnding[span.end - 1] = index
    }
  }

  private func starts(_ literal: String, at index: Int) -> Bool {
    let pattern = Array(literal.utf8)
    guard index + pattern.count <= bytes.count else { return false }
    return bytes[index..<(index + pattern.count)].elementsEqual(pattern)
  }

  private mutating func mark(_ range: Range<Int>, _ region: Region) {
    for index in range { regions[index] = region }
  }

  private mutating func lexCFamily(_ language: SourceLanguage) {
    var index = 0
    let count = bytes.count
    let singleQuoted = language != .swift && language != .pbxproj
    while index < count {
      if starts("//", at: index) {
        var end = index
        while end < count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
        mark(index..<end, .comment)
        index = end
      } else if starts("/*", at: index) {
        var end = index + 2
        while end < count, !starts("*/", at: end) { end += 1 }
        end = min(count, end + 2)
        mark(index..<end, .comment)
        index = end
      } else if starts("\"\"\"", at: index), language != .typescript {
        var end = index + 3
        while end < count, !starts("\"\"\"", at: end) { end += 1 }
        end = min(count, end + 3)
        record(index..<end, quote: 3)
        index = end
      } else if bytes[index] == UInt8(ascii: "\"")
        || (singleQuoted && bytes[index] == UInt8(ascii: "'"))
        || (language == .typescript && bytes[index] == UInt8(ascii: "`"))
      {
        let quote = bytes[index]
        var end = index + 1
        while end < count, bytes[end] != quote {
          if bytes[end] == UInt8(ascii: "\\") {
            end += 2
            continue
          }
          if bytes[end] == UInt8(ascii: "\n"), quote != UInt8(ascii: "`") { break }
          end += 1
        }
        end = min(count, end + 1)
        record(index..<end, quote: 1)
        index = end
      } else {
        index += 1
      }
    }
  }

  private mutating func lexQuotedOnly() {
    var index = 0
    while index < bytes.count {
      if bytes[index] == UInt8(ascii: "\"") {
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
          if bytes[end] == UInt8(ascii: "\\") { end += 1 }
          end += 1
        }
        end = min(bytes.count, end + 1)
        record(index..<end, quote: 1)
        index = end
      } else {
        index += 1
      }
    }
  }

  private mutating func record(_ range: Range<Int>, quote: Int) {
    mark(range, .string)
    let contentEnd = max(range.lowerBound + quote, range.upperBound - quote)
    strings.append(
      StringSpan(
        start: range.lowerBound, end: range.upperBound, contentStart: range.lowerBound + quote,
        contentEnd: contentEnd))
  }
}
