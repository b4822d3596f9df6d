import Foundation

/// Lines of a text file as editors count them: `\r\n`, `\n` and a lone `\r` all end a line,
/// so that a file saved on Windows reads the same as on macOS.
public enum TextLines {
  public static func split(_ text: String) -> [String] {
    var lines: [String] = []
    var current = String.UnicodeScalarView()
    var previousWasCR = false
    for scalar in text.unicodeScalars {
      if scalar == "\n" {
        if !previousWasCR { lines.append(String(current)) }
        current = String.UnicodeScalarView()
        previousWasCR = false
      } else if scalar == "\r" {
        lines.append(String(current))
        current = String.UnicodeScalarView()
        previousWasCR = true
      } else {
        current.append(scalar)
        previousWasCR = false
      }
    }
    lines.append(String(current))
    return lines
  }
}

/// Decodes a text file the way the platforms accept it: UTF-8 with or without a byte-order
/// mark, and UTF-16 (either byte order, with a BOM — Xcode's usual `.strings` encoding, or
/// without one when the content makes the order plain).
public enum TextDecoding {
  public enum Encoding: String, Sendable {
    case utf8 = "UTF-8"
    case utf16LittleEndian = "UTF-16LE"
    case utf16BigEndian = "UTF-16BE"
  }

  /// The text of `data`, without a BOM, and the encoding it was in.
  public static func decode(_ data: Data) -> (text: String, encoding: Encoding) {
    let bytes = [UInt8](data.prefix(4))
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
      return (String(decoding: data.dropFirst(3), as: UTF8.self), .utf8)
    }
    if bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xFE {
      return (utf16(data.dropFirst(2), littleEndian: true), .utf16LittleEndian)
    }
    if bytes.count >= 2, bytes[0] == 0xFE, bytes[1] == 0xFF {
      return (utf16(data.dropFirst(2), littleEndian: false), .utf16BigEndian)
    }
    // UTF-16 without a BOM: ASCII text has every other byte zero.
    if data.count >= 4, data.count % 2 == 0 {
      let sample = [UInt8](data.prefix(64))
      let evenZeros = stride(from: 0, to: sample.count, by: 2).filter { sample[$0] == 0 }.count
      let oddZeros = stride(from: 1, to: sample.count, by: 2).filter { sample[$0] == 0 }.count
      let half = sample.count / 2
      if oddZeros == half && evenZeros == 0 {
        return (utf16(data, littleEndian: true), .utf16LittleEndian)
      }
      if evenZeros == half && oddZeros == 0 {
        return (utf16(data, littleEndian: false), .utf16BigEndian)
      }
    }
    return (String(decoding: data, as: UTF8.self), .utf8)
  }

  private static func utf16(_ data: Data, littleEndian: Bool) -> String {
    let bytes = [UInt8](data)
    var units: [UInt16] = []
    units.reserveCapacity(bytes.count / 2)
    var index = 0
    while index + 1 < bytes.count {
      let a = UInt16(bytes[index])
      let b = UInt16(bytes[index + 1])
      units.append(littleEndian ? a | (b << 8) : (a << 8) | b)
      index += 2
    }
    return String(decoding: units, as: UTF16.self)
  }
}
