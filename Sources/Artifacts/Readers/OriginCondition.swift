import Foundation
import QualifyCore

/// What a decision read from the app's code came to: its value, or why it could not be read.
/// An unread decision is never assumed correct and never called a failure (issue 23, A).
public enum ReadDecision<Value: Sendable>: Sendable {
  case read(Value)
  /// The construct qualify does not understand, in a sentence.
  case unverified(String)

  public var value: Value? {
    if case .read(let value) = self { return value }
    return nil
  }

  /// What could not be read, nil when it was.
  public var problem: String? {
    if case .unverified(let reason) = self { return reason }
    return nil
  }
}

/// The scheme, host and port of a URL as a shell's code sees them: the port only when the URL
/// writes one (`URL.port` is nil and `Uri.getPort()` is -1 otherwise).
public struct URLParts: Sendable, Equatable {
  public var scheme: String?
  public var host: String?
  public var port: Int?

  public init(_ url: String) {
    let components = URLComponents(string: url)
    scheme = components?.scheme
    host = components?.host
    port = components?.port
  }
}

/// A condition over the navigated URL and the active instance's URL, as a navigation policy
/// writes it (`url.host == active.host && url.port == active.port`,
/// `scheme.equals(activeUri.getScheme())`): evaluated, not recognised, so that a comparison
/// written the wrong way or a component left out behaves as it would on the device.
public indirect enum OriginCondition: Sendable, Equatable, CustomStringConvertible {
  /// The navigated (or opened) URL, the active instance's, or a literal the code writes.
  public enum Side: String, Sendable { case url, active, literal }

  public enum TextMatch: String, Sendable { case suffix, prefix, contains }

  public struct Operand: Sendable, Equatable, CustomStringConvertible {
    public var side: Side
    /// `scheme`, `host` or `port`; a literal's text.
    public var component: String
    /// Compared lowercased (`lowercased()`, `toLowerCase()`, `equalsIgnoreCase`).
    public var lowercased = false

    public var description: String {
      let text = side == .literal ? "\"\(component)\"" : "\(side.rawValue).\(component)"
      return lowercased ? "lower(\(text))" : text
    }

    public init(side: Side, component: String, lowercased: Bool = false) {
      self.side = side
      self.component = component
      self.lowercased = lowercased
    }
  }

  case equal(Operand, Operand)
  /// `a.hasSuffix(b)` / `endsWith`, `hasPrefix` / `startsWith`, `contains`: a look-alike
  /// test where equality was meant.
  case matches(TextMatch, Operand, Operand)
  case present(Operand)
  case not(OriginCondition)
  /// A test that holds or fails whatever the URLs (a main-frame test, for the main-frame
  /// navigations a policy decides).
  case constant(Bool)
  case and(OriginCondition, OriginCondition)
  case or(OriginCondition, OriginCondition)

  public func evaluate(url: URLParts, active: URLParts) -> Bool {
    func value(_ operand: Operand) -> String? {
      let raw: String?
      if operand.side == .literal {
        raw = operand.component
      } else {
        let parts = operand.side == .url ? url : active
        switch operand.component {
        case "scheme": raw = parts.scheme
        case "host": raw = parts.host
        default: raw = parts.port.map(String.init)
        }
      }
      return operand.lowercased ? raw?.lowercased() : raw
    }
    switch self {
    case .equal(let left, let right): return value(left) == value(right)
    case .matches(let kind, let left, let right):
      guard let text = value(left), let part = value(right) else { return false }
      switch kind {
      case .suffix: return text.hasSuffix(part)
      case .prefix: return text.hasPrefix(part)
      case .contains: return text.contains(part)
      }
    case .present(let operand): return value(operand) != nil
    case .not(let inner): return !inner.evaluate(url: url, active: active)
    case .constant(let value): return value
    case .and(let left, let right):
      return left.evaluate(url: url, active: active) && right.evaluate(url: url, active: active)
    case .or(let left, let right):
      return left.evaluate(url: url, active: active) || right.evaluate(url: url, active: active)
    }
  }

  /// The sides' components that take part.
  public var operands: [Operand] {
    switch self {
    case .equal(let left, let right), .matches(_, let left, let right): [left, right]
    case .present(let operand): [operand]
    case .not(let inner): inner.operands
    case .constant: []
    case .and(let left, let right), .or(let left, let right): left.operands + right.operands
    }
  }

  public var description: String {
    switch self {
    case .equal(let left, let right): "\(left) == \(right)"
    case .matches(let kind, let left, let right): "\(left) \(kind.rawValue)-matches \(right)"
    case .present(let operand): "\(operand) present"
    case .not(let inner): "!(\(inner))"
    case .constant(let value): "\(value)"
    case .and(let left, let right): "(\(left) && \(right))"
    case .or(let left, let right): "(\(left) || \(right))"
    }
  }
}

/// A navigation policy's decision, read from its function: the condition under which a
/// main-frame navigation stays in the WebView.
public struct NavigationDecision: Sendable, Equatable {
  public var staysInWebView: OriginCondition
  /// The condition as the code writes it.
  public var written: String

  public init(staysInWebView: OriginCondition, written: String) {
    self.staysInWebView = staysInWebView
    self.written = written
  }

  public func keeps(_ url: String, active: String) -> Bool {
    staysInWebView.evaluate(url: URLParts(url), active: URLParts(active))
  }
}
