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
    // The text is already decoded (a UTF-16 file included): its declaration must say UTF-8
    // for the bytes the parser now gets.
    var text = text
    if text.hasPrefix("<?xml"), let end = text.range(of: "?>"),
      let encoding = text[..<end.lowerBound].range(
        of: #"encoding\s*=\s*["'][^"']*["']"#, options: .regularExpression)
    {
      text.replaceSubrange(encoding, with: "encoding=\"UTF-8\"")
    }
    let data = Data(text.utf8)
    let parser = XMLParser(data: data)
    let builder = Builder(parser: parser)
    parser.delegate = builder
    parser.shouldProcessNamespaces = false
    let parsed = parser.parse()
    let lines = TextLines.split(text)
    if let refusal = builder.refusal {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: refusal.line, column: 1), refusal.message,
        sourceLine: refusal.line - 1 < lines.count ? lines[refusal.line - 1] : nil)
    }
    // On Linux, parse() can return true with an error recorded: trust parserError too.
    if !parsed || parser.parserError != nil || builder.root == nil {
      // Where libxml2 stood when it reported the first error; after parse() returns, the
      // position is the end of what it read, often the end of the file.
      let first = builder.firstError
      let line = max(1, first?.line ?? parser.lineNumber)
      let column = max(1, first?.column ?? parser.columnNumber)
      var reason =
        ((first?.error ?? parser.parserError) as NSError?).map(describe) ?? "malformed XML"
      if let open = first?.open ?? builder.stack.last {
        reason += " (inside <\(open.name)> opened at line \(open.line))"
      }
      throw Diagnostic.error(
        at: FileLocation(file: file, line: line, column: column),
        "malformed XML: \(reason)",
        sourceLine: line - 1 < lines.count ? lines[line - 1] : nil)
    }
    guard let root = builder.root else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: 1, column: 1), "empty XML document")
    }
    return root
  }

  /// What libxml2's error code means, in words (Foundation on Linux passes only the code).
  static func describe(_ error: NSError) -> String {
    let messages: [Int: String] = [
      4: "the document is empty",
      5: "unexpected end of the document: an element is not closed",
      9: "a character that is not allowed in XML",
      23: "an entity reference without its ';'",
      26: "an undeclared entity (only &amp; &lt; &gt; &quot; &apos; are predefined)",
      29: "a reference to an external entity, which is not allowed here",
      31: "an unknown encoding in the XML declaration",
      32: "an unsupported encoding in the XML declaration",
      34: "a quoted string is not closed",
      38: "'<' inside an attribute value (write &lt;)",
      39: "an attribute value is not quoted",
      40: "an attribute value is not closed",
      41: "an attribute without a value",
      42: "an attribute is given twice",
      45: "a comment is not closed (missing -->)",
      63: "a CDATA section is not closed",
      64: "a processing instruction named xml that is not the declaration",
      65: "a space is required here",
      68: "a name is expected here (an element or attribute name)",
      73: "'>' expected: a tag is not closed",
      74: "'</' expected",
      76: "an end tag does not match the element it closes",
      77: "a tag is not finished",
      85: "the document is not well balanced (a start tag without its end tag)",
      86: "extra content after the root element",
      111: "unexpected end of the data",
    ]
    if let message = messages[error.code] { return message }
    return "libxml2 error \(error.code)"
  }

  /// Deeper than any manifest, property list or resource file; a file beyond it is refused
  /// rather than allowed to exhaust the stack of whatever walks the tree.
  public static let maximumDepth = 128

  private final class Builder: NSObject, XMLParserDelegate {
    weak var parser: XMLParser?
    var stack: [XMLNode] = []
    var root: XMLNode?
    /// Set when the document is refused for a reason of ours (nesting).
    var refusal: (message: String, line: Int)?
    /// The first syntax error, where it happened and which element was open.
    var firstError: (error: Error, line: Int, column: Int, open: XMLNode?)?

    init(parser: XMLParser) {
      self.parser = parser
    }

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
      guard refusal == nil else { return }
      if stack.count >= XMLReader.maximumDepth {
        refusal = (
          "elements nested deeper than \(XMLReader.maximumDepth) levels: not an app configuration file",
          parser.lineNumber
        )
        parser.abortParsing()
        return
      }
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

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
      guard firstError == nil else { return }
      firstError = (parseError, parser.lineNumber, parser.columnNumber, stack.last)
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
      stack.last?.text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
      stack.last?.text += String(decoding: block, as: UTF8.self)
    }
  }
}
