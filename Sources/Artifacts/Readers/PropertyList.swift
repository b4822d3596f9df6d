import Foundation
import QualifyCore

/// A property-list value with the line its key was written on (XML plists).
public indirect enum PlistValue: Sendable {
  case dictionary([(key: String, value: PlistValue, line: Int)])
  case array([PlistValue])
  case string(String)
  case bool(Bool)
  case integer(Int)
  case real(Double)
  case data(Data)
  case date(String)

  public subscript(key: String) -> PlistValue? {
    guard case .dictionary(let entries) = self else { return nil }
    return entries.last { $0.key == key }?.value
  }

  public func line(of key: String) -> Int? {
    guard case .dictionary(let entries) = self else { return nil }
    return entries.last { $0.key == key }?.line
  }

  public var string: String? { if case .string(let s) = self { return s } else { return nil } }
  public var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
  public var array: [PlistValue]? { if case .array(let a) = self { return a } else { return nil } }
  public var entries: [(key: String, value: PlistValue, line: Int)]? {
    if case .dictionary(let e) = self { return e } else { return nil }
  }
}

/// Reads XML property lists with line numbers, and binary ones through Foundation.
public enum PropertyListReader {
  public static func parse(data: Data, file: String) throws -> PlistValue {
    if data.starts(with: Array("bplist".utf8)) {
      do {
        let object = try PropertyListSerialization.propertyList(from: data, format: nil)
        return try convert(object, file: file, depth: 0)
      } catch let diagnostic as Diagnostic {
        throw diagnostic
      } catch {
        throw Diagnostic.error(
          at: FileLocation(file: file, line: 1, column: 1), "malformed binary property list")
      }
    }
    let text = TextDecoding.decode(data).text
    let root = try XMLReader.parse(text: text, file: file)
    let lines = TextLines.split(text)
    guard root.name == "plist", let top = root.children.first else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: root.line, column: 1),
        "not a property list: the root element is <\(root.name)>, expected <plist>")
    }
    return try value(top, file: file, lines: lines)
  }

  private static func value(_ node: XMLNode, file: String, lines: [String]) throws -> PlistValue {
    func fail(_ message: String) -> Diagnostic {
      Diagnostic.error(
        at: FileLocation(file: file, line: node.line, column: 1), message,
        sourceLine: node.line - 1 < lines.count ? lines[node.line - 1] : nil)
    }
    let text = node.text.trimmingCharacters(in: .whitespacesAndNewlines)
    switch node.name {
    case "dict":
      var entries: [(key: String, value: PlistValue, line: Int)] = []
      var pendingKey: (String, Int)?
      for child in node.children {
        if child.name == "key" {
          if let (key, _) = pendingKey { throw fail("key \"\(key)\" has no value") }
          pendingKey = (child.text, child.line)
        } else {
          guard let (key, line) = pendingKey else {
            throw fail("<\(child.name)> in a <dict> without a preceding <key>")
          }
          entries.append((key: key, value: try value(child, file: file, lines: lines), line: line))
          pendingKey = nil
        }
      }
      if let (key, _) = pendingKey { throw fail("key \"\(key)\" has no value") }
      return .dictionary(entries)
    case "array": return .array(try node.children.map { try value($0, file: file, lines: lines) })
    case "string": return .string(node.text)
    case "true": return .bool(true)
    case "false": return .bool(false)
    case "integer":
      guard let n = Int(text) else { throw fail("<integer> \"\(text)\" is not a number") }
      return .integer(n)
    case "real":
      guard let n = Double(text) else { throw fail("<real> \"\(text)\" is not a number") }
      return .real(n)
    case "data":
      return .data(Data(base64Encoded: text, options: .ignoreUnknownCharacters) ?? Data())
    case "date": return .date(text)
    default: throw fail("unknown property-list element <\(node.name)>")
    }
  }

  private static func convert(_ object: Any, file: String, depth: Int) throws -> PlistValue {
    guard depth < XMLReader.maximumDepth else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: 1, column: 1),
        "values nested deeper than \(XMLReader.maximumDepth) levels: not an app configuration file")
    }
    switch object {
    case let d as [String: Any]:
      return .dictionary(
        try d.keys.sorted().map {
          (key: $0, value: try convert(d[$0] as Any, file: file, depth: depth + 1), line: 0)
        }
      )
    case let a as [Any]: return .array(try a.map { try convert($0, file: file, depth: depth + 1) })
    case let s as String: return .string(s)
    case let b as Bool: return .bool(b)
    case let n as Int: return .integer(n)
    case let n as Double: return .real(n)
    case let d as Data: return .data(d)
    case let d as Date: return .date(ISO8601DateFormatter().string(from: d))
    default:
      throw Diagnostic.error(
        at: FileLocation(file: file, line: 1, column: 1), "unsupported property-list value")
    }
  }
}
