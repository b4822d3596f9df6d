import Foundation
import QualifyCore

/// An Android network security configuration (`res/xml/…`, named by the manifest's
/// `android:networkSecurityConfig`), as Android applies it: the most specific
/// `domain-config` that matches a host decides, nested configs inherit what they do not say
/// from their parent, then from `base-config`, then from the platform's default;
/// `debug-overrides` apply only to a debuggable build.
/// (developer.android.com/privacy-and-security/security-config)
public struct NetworkSecurityConfig: Sendable {
  public struct Domain: Sendable {
    public var name: String
    public var includeSubdomains: Bool
    public var location: FileLocation

    public init(name: String, includeSubdomains: Bool, location: FileLocation) {
      self.name = name
      self.includeSubdomains = includeSubdomains
      self.location = location
    }
  }

  /// A `base-config` (no domains) or a `domain-config`.
  public struct Config: Sendable {
    public var domains: [Domain] = []
    /// `cleartextTrafficPermitted` as this element writes it, nil when it inherits.
    public var cleartext: Sourced<Bool>?
    /// Where its `trust-anchors` add the user-installed CAs (`<certificates src="user"/>`).
    public var userCertificates: FileLocation?
    /// The enclosing `domain-config`, by index; nil for a top-level one (or the base).
    public var parent: Int?
    public var location: FileLocation

    public init(
      domains: [Domain] = [], cleartext: Sourced<Bool>? = nil,
      userCertificates: FileLocation? = nil,
      parent: Int? = nil, location: FileLocation
    ) {
      self.domains = domains
      self.cleartext = cleartext
      self.userCertificates = userCertificates
      self.parent = parent
      self.location = location
    }
  }

  public var file: String
  public var base: Config?
  public var domainConfigs: [Config] = []
  /// Where `debug-overrides` trusts the user-installed CAs.
  public var debugOverridesUserCertificates: FileLocation?

  public init(file: String) {
    self.file = file
  }

  /// Whether Android lets the app speak cleartext to `host`, and what decided.
  /// - Parameter platformDefault: cleartext when nothing says otherwise (true below
  ///   targetSdk 28, false from 28).
  public func cleartextPermitted(host: String, platformDefault: Bool) -> Sourced<Bool> {
    let host = host.lowercased()
    var best: (index: Int, length: Int)?
    for (index, config) in domainConfigs.enumerated() {
      for domain in config.domains {
        let name = domain.name.lowercased()
        let exact = host == name
        guard exact || (domain.includeSubdomains && host.hasSuffix("." + name)) else { continue }
        // Two names that both match a host and are as long as each other are the same name,
        // which Android refuses to see twice: the longest match is the one.
        if best.map({ name.count > $0.length }) ?? true { best = (index, name.count) }
      }
    }
    var current = best?.index
    while let index = current {
      if let value = domainConfigs[index].cleartext { return value }
      current = domainConfigs[index].parent
    }
    if let value = base?.cleartext { return value }
    return Sourced(
      platformDefault, at: base?.location ?? FileLocation(file: file, line: 1, column: 1),
      derivation: [
        "nothing in \(file) sets cleartextTrafficPermitted for \(host): the platform default (\(platformDefault)) applies"
      ])
  }

  /// Every place that permits cleartext somewhere: the base and each domain config that says
  /// true, with the domains it covers.
  public var cleartextAllowances: [(what: String, value: Sourced<Bool>)] {
    var out: [(String, Sourced<Bool>)] = []
    if let value = base?.cleartext, value.value { out.append(("base-config", value)) }
    for config in domainConfigs {
      guard let value = config.cleartext, value.value else { continue }
      let names = config.domains.map { $0.includeSubdomains ? "*.\($0.name)" : $0.name }
      out.append(("domain-config for \(names.joined(separator: ", "))", value))
    }
    return out
  }

  /// Where user-installed CAs are trusted in a build that is (or is not) debuggable.
  public func userCertificateTrust(debuggable: Bool) -> [(what: String, location: FileLocation)] {
    var out: [(String, FileLocation)] = []
    if let at = base?.userCertificates { out.append(("base-config", at)) }
    for config in domainConfigs {
      if let at = config.userCertificates {
        out.append(("domain-config for \(config.domains.map(\.name).joined(separator: ", "))", at))
      }
    }
    if debuggable, let at = debugOverridesUserCertificates {
      out.append(("debug-overrides (the build is debuggable)", at))
    }
    return out
  }

  /// Reads the document at `file`, booleans resolved as aapt2 compiles them.
  /// - Throws: a `Diagnostic` for a root that is not `<network-security-config>` or a value
  ///   that is not a boolean.
  static func read(_ root: XMLNode, file: String, resources: AndroidResources) throws
    -> NetworkSecurityConfig
  {
    func at(_ node: XMLNode) -> FileLocation {
      FileLocation(file: file, line: node.line, column: 1)
    }
    guard root.name == "network-security-config" else {
      throw Diagnostic.error(
        at: at(root), "expected <network-security-config> as the root element, found <\(root.name)>"
      )
    }
    func flag(_ node: XMLNode) throws -> Sourced<Bool>? {
      guard let raw = node.attributes["cleartextTrafficPermitted"] else { return nil }
      switch resources.boolean(raw, at: at(node)) {
      case .value(let value, let location, let derivation):
        return Sourced(value, at: location ?? at(node), derivation: derivation)
      case .invalid(let why):
        throw Diagnostic.error(at: at(node), "cleartextTrafficPermitted: \(why)")
      }
    }
    func userCertificates(_ node: XMLNode) -> FileLocation? {
      for anchors in node.children("trust-anchors") {
        if let certificates = anchors.children("certificates").first(where: {
          $0.attributes["src"]?.trimmingCharacters(in: .whitespaces).lowercased() == "user"
        }) {
          return at(certificates)
        }
      }
      return nil
    }
    var config = NetworkSecurityConfig(file: file)
    func domainConfig(_ node: XMLNode, parent: Int?) throws {
      let domains = node.children("domain").map { domain in
        Domain(
          name: domain.text.trimmingCharacters(in: .whitespacesAndNewlines),
          includeSubdomains: AndroidResources.literal(domain.attributes["includeSubdomains"] ?? "")
            ?? false,
          location: at(domain))
      }
      config.domainConfigs.append(
        Config(
          domains: domains, cleartext: try flag(node), userCertificates: userCertificates(node),
          parent: parent, location: at(node)))
      let index = config.domainConfigs.count - 1
      for child in node.children("domain-config") { try domainConfig(child, parent: index) }
    }
    for child in root.children {
      switch child.name {
      case "base-config":
        config.base = Config(
          cleartext: try flag(child), userCertificates: userCertificates(child), location: at(child)
        )
      case "domain-config":
        try domainConfig(child, parent: nil)
      case "debug-overrides":
        config.debugOverridesUserCertificates = userCertificates(child)
      default:
        continue
      }
    }
    return config
  }
}
