import Foundation
import QualifyCore

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// A parsed XML element with the line it starts on.
public final class XMLNode: @unchecked Sendable {
  public let name: String
  public let attributes: [String: String]
  public let line: Int
  public internal(set) var children: [XMLNode] = []
  public internal(set) var text: String = ""

  init(name: String, attributes: [String: String], line: Int) {
    self.name = name
    self.attributes = attributes
    self.line = line
  }

  /// Direct children named `name`.
  public func children(_ name: String) -> [XMLNode] { children.filter { $0.name == name } }

  /// Every descendant named `name`, depth first.
  public func descendants(_ name: String) -> [XMLNode] {
    children.flatMap { ($0.name == name ? [$0] : []) + $0.descendants(name) }
  }
}

/// Reads an XML file (plists, Android manifests and resources) into `XMLNode`s, reporting
/// the line and column of a syntax error.
public enum XMLReader {
  public static func parse(text: String, file: String) throws -> XMLNode {
    let data = Data(text.utf8)
    let parser = XMLParser(data: data)
    let builder = Builder(parser: parser)
    parser.delegate = builder
    parser.shouldProcessNamespaces = false
    let parsed = parser.parse()
    // On Linux, parse() can return true with an error recorded: trust parserError too.
    if !parsed || parser.parserError != nil || builder.root == nil {
      let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
      let line = max(1, parser.lineNumber)
      let reason = (parser.parserError as NSError?).map(describe) ?? "malformed XML"
      throw Diagnostic.error(
        at: FileLocation(file: file, line: line, column: max(1, parser.columnNumber)),
        "malformed XML: \(reason)",
        sourceLine: line - 1 < lines.count ? String(lines[line - 1]) : nil)
    }
    guard let root = builder.root else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: 1, column: 1), "empty XML document")
    }
    return root
  }

  private static func describe(_ error: NSError) -> String {
    // libxml2's codes carry no text through Foundation on Linux; name the common ones.
    switch error.code {
    case 76: return "mismatched or unclosed tag"
    case 73: return "'>' expected"
    case 5: return "unexpected end of document"
    case 4: return "document is empty"
    case 41: return "attribute without a value"
    case 39: return "attribute value not quoted"
    case 111: return "unexpected end of data"
    default: return "parser error \(error.code)"
    }
  }

  private final class Builder: NSObject, XMLParserDelegate {
    weak var parser: XMLParser?
    var stack: [XMLNode] = []
    var root: XMLNode?

    init(parser: XMLParser) {
      self.parser = parser
    }

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
      let node = XMLNode(name: elementName, attributes: attributeDict, line: parser.lineNumber)
      if let parent = stack.last { parent.children.append(node) } else { root = node }
      stack.append(node)
    }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName qName: String?
    ) {
      _ = stack.popLast()
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      stack.last?.text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
      stack.last?.text += String(decoding: block, as: UTF8.self)
    }
  }
}
