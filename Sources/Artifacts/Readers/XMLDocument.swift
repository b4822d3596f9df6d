import CLibXML2
import Foundation
import QualifyCore

/// A parsed XML element with the line it starts on.
public struct XMLNode: Sendable {
  /// The qualified name, prefix included (`android:name` style, as the files write it).
  public let name: String
  /// Attributes by qualified name (`android:exported`); namespace declarations are not
  /// attributes.
  public let attributes: [String: String]
  public let line: Int
  public let children: [XMLNode]
  /// The element's own text and CDATA, children's excluded.
  public let text: String

  /// Direct children named `name`.
  public func children(_ name: String) -> [XMLNode] { children.filter { $0.name == name } }

  /// Every descendant named `name`, depth first.
  public func descendants(_ name: String) -> [XMLNode] {
    children.flatMap { ($0.name == name ? [$0] : []) + $0.descendants(name) }
  }
}

/// Reads an XML file (plists, Android manifests and resources) into `XMLNode`s with libxml2,
/// reporting what is wrong with its line and column.
///
/// The document is parsed strictly (no recovery), without network access and without
/// loading an outside DTD. An entity the document's own internal subset declares is expanded
/// where it is used, in attributes and text, as the value the file means (`&t;` for `true`);
/// an external entity (`SYSTEM "file:…"`) is refused, never read; expansion is bounded in
/// depth and size (no entity bomb).
public enum XMLReader {
  /// Deeper than any manifest, property list or resource file; a file beyond it is refused
  /// (libxml2 itself stops at 256).
  public static let maximumDepth = 128

  /// libxml2 must be initialised once before threads parse at the same time.
  private static let initialised: Void = xmlInitParser()

  public static func parse(text: String, file: String) throws -> XMLNode {
    _ = initialised
    // The text is already decoded (a UTF-16 file included), so libxml2 is told it gets
    // UTF-8 whatever the declaration says.
    let bytes = Array(text.utf8)
    let lines = TextLines.split(text)
    func diagnostic(_ message: String, line: Int, column: Int) -> Diagnostic {
      Diagnostic.error(
        at: FileLocation(file: file, line: max(1, line), column: max(1, column)), message,
        sourceLine: line >= 1 && line <= lines.count ? lines[line - 1] : nil)
    }
    guard !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else {
      throw diagnostic("malformed XML: the document is empty", line: 1, column: 1)
    }
    guard let context = xmlNewParserCtxt() else {
      throw diagnostic("libxml2 could not make a parser", line: 1, column: 1)
    }
    defer { xmlFreeParserCtxt(context) }
    let first = UnsafeMutablePointer<xmlError>.allocate(capacity: 1)
    first.initialize(to: xmlError())
    defer {
      xmlResetError(first)
      first.deallocate()
    }
    CLibXML2_keepFirstError(context, first)
    let options = Int32(
      XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
        | XML_PARSE_BIG_LINES.rawValue)
    let document = bytes.withUnsafeBufferPointer { buffer in
      buffer.withMemoryRebound(to: CChar.self) {
        xmlCtxtReadMemory(context, $0.baseAddress, Int32($0.count), file, "UTF-8", options)
      }
    }
    defer { if let document { xmlFreeDoc(document) } }
    guard let document, context.pointee.wellFormed != 0 else {
      let error = first.pointee.code != 0 ? first.pointee : xmlCtxtGetLastError(context)?.pointee
      let line = Int(error?.line ?? 1)
      let column = Int(error?.int2 ?? 1)
      throw diagnostic(
        "malformed XML: \(describe(error))", line: line, column: column)
    }
    guard let root = xmlDocGetRootElement(document) else {
      throw diagnostic("malformed XML: the document has no root element", line: 1, column: 1)
    }
    return try node(root, depth: 1, diagnostic: diagnostic)
  }

  /// libxml2's message, with the codes whose wording misleads replaced by plain words.
  static func describe(_ error: xmlError?) -> String {
    guard let error else { return "malformed XML" }
    let plain: [Int32: String] = [
      4: "the document is empty",
      5: "unexpected end of the document: an element is not closed",
      26: "an undeclared entity (only &amp; &lt; &gt; &quot; &apos; are predefined)",
      38: "'<' inside an attribute value (write &lt;)",
      39: "an attribute value is not quoted",
      41: "an attribute without a value",
      45: "a comment is not closed (missing -->)",
      64: "a processing instruction named xml that is not the declaration",
      73: "'>' expected: a tag is not closed",
      86: "extra content after the root element",
    ]
    let own =
      error.message.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) }
      ?? ""
    if own.hasPrefix("Excessive depth in document") {
      return "elements nested deeper than 256 levels: not an app configuration file"
    }
    if let words = plain[error.code] {
      return own.isEmpty ? words : "\(words) (libxml2: \(own))"
    }
    return own.isEmpty ? "libxml2 error \(error.code)" : own
  }

  /// The most text entities may expand to in one element: far above any real value.
  static let maximumExpansion = 64 << 10

  /// The replacement text of the internal entity `name`, its own references expanded.
  private static func expand(
    _ name: String, in document: xmlDocPtr?, depth: Int, budget: inout Int, line: Int,
    diagnostic: (String, Int, Int) -> Diagnostic
  ) throws -> String {
    let predefined = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]
    if let value = predefined[name] { return value }
    guard depth <= 8 else {
      throw diagnostic("entities nest deeper than 8 levels (&\(name);): an entity bomb", line, 1)
    }
    guard let entity = xmlGetDocEntity(document, name) else {
      throw diagnostic("the entity &\(name); is not declared", line, 1)
    }
    guard entity.pointee.etype == XML_INTERNAL_GENERAL_ENTITY else {
      throw diagnostic(
        "the entity &\(name); is external: qualify reads nothing outside the file (nor does aapt2)",
        line, 1)
    }
    let content = entity.pointee.content.map { String(cString: $0) } ?? ""
    budget -= content.utf8.count
    guard budget >= 0 else {
      throw diagnostic(
        "entities expand to more than \(maximumExpansion >> 10) KiB in one element: an entity bomb",
        line, 1)
    }
    // The replacement text may refer to other entities, and to characters by number.
    var out = ""
    var rest = Substring(content)
    while let amp = rest.firstIndex(of: "&") {
      out += rest[..<amp]
      guard let semicolon = rest[amp...].firstIndex(of: ";") else {
        out += rest[amp...]
        rest = ""
        break
      }
      let reference = String(rest[rest.index(after: amp)..<semicolon])
      if reference.hasPrefix("#") {
        let digits = reference.dropFirst()
        let code =
          digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits)
        if let code, let scalar = Unicode.Scalar(code) { out.unicodeScalars.append(scalar) }
      } else {
        out += try expand(
          reference, in: document, depth: depth + 1, budget: &budget, line: line,
          diagnostic: diagnostic)
      }
      rest = rest[rest.index(after: semicolon)...]
    }
    return out + rest
  }

  private static func qualifiedName(_ name: UnsafePointer<xmlChar>?, _ ns: xmlNsPtr?) -> String {
    let local = name.map { String(cString: $0) } ?? ""
    guard let prefix = ns?.pointee.prefix else { return local }
    return String(cString: prefix) + ":" + local
  }

  private static func node(
    _ element: xmlNodePtr, depth: Int, diagnostic: (String, Int, Int) -> Diagnostic
  ) throws -> XMLNode {
    let line = Int(xmlGetLineNo(element))
    guard depth <= maximumDepth else {
      throw diagnostic(
        "elements nested deeper than \(maximumDepth) levels: not an app configuration file",
        line, 1)
    }
    var attributes: [String: String] = [:]
    var attribute = element.pointee.properties
    var budget = maximumExpansion
    func expanded(_ reference: xmlNodePtr) throws -> String {
      let name = reference.pointee.name.map { String(cString: $0) } ?? ""
      return try expand(
        name, in: element.pointee.doc, depth: 1, budget: &budget, line: line,
        diagnostic: diagnostic)
    }
    while let current = attribute {
      var value = ""
      var part = current.pointee.children
      while let piece = part {
        if piece.pointee.type == XML_TEXT_NODE, let content = piece.pointee.content {
          value += String(cString: content)
        } else if piece.pointee.type == XML_ENTITY_REF_NODE {
          value += try expanded(piece)
        }
        part = piece.pointee.next
      }
      attributes[qualifiedName(current.pointee.name, current.pointee.ns)] = value
      attribute = current.pointee.next
    }
    var children: [XMLNode] = []
    var text = ""
    var child = element.pointee.children
    while let current = child {
      switch current.pointee.type {
      case XML_ELEMENT_NODE:
        children.append(try node(current, depth: depth + 1, diagnostic: diagnostic))
      case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
        if let content = current.pointee.content { text += String(cString: content) }
      case XML_ENTITY_REF_NODE:
        text += try expanded(current)
      default:
        // Comments and processing instructions: no meaning here.
        break
      }
      child = current.pointee.next
    }
    return XMLNode(
      name: qualifiedName(element.pointee.name, element.pointee.ns), attributes: attributes,
      line: line, children: children, text: text)
  }
}
