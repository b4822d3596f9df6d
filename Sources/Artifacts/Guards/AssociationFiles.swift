import Foundation
import QualifyCore
import QualifyCrypto

/// The two files a site publishes so that the OS opens its links in an app (seed 003, 5.3),
/// judged as the OS judges them: Apple's `apple-app-site-association` (an `applinks` object
/// whose `details` name the app as `TEAMID.bundle.id` and the paths it takes) and Android's
/// Digital Asset Links `assetlinks.json` (a statement granting `handle_all_urls` to the
/// package signed with a certificate of that SHA-256).
///
/// One judge serves the static guard, the simulated OS verifier and `qualify links verify`.
public enum AssociationFiles {
  /// Why a file does not certify the app: the field at fault and the line it is on.
  public struct Problem: Sendable, Equatable, CustomStringConvertible {
    public var field: String
    public var message: String
    public var line: Int?

    public var description: String { "\(field): \(message)" }
  }

  public static let applePath = "/.well-known/apple-app-site-association"
  public static let androidPath = "/.well-known/assetlinks.json"
  public static let handleAllURLs = "delegate_permission/common.handle_all_urls"
  /// The certificate of a debug keystore of this machine's own (`~/.android/debug.keystore`
  /// is made per machine): what a debug build is signed with when the team shares none.
  public static let localDebugFingerprint = normalized(
    Digest.sha256Hex(Array("qualify debug keystore".utf8)))

  // MARK: Apple

  /// What keeps `text` from sending `paths` of its site to `appID`; empty when it does.
  public static func appleProblems(_ text: String, appID: String, paths: [String]) -> [Problem] {
    let root: JSONValue
    do {
      root = try JSONDocument(text: text, file: "apple-app-site-association").value
    } catch {
      return [notJSON(error)]
    }
    guard let applinks = root["applinks"], applinks.members != nil else {
      return [
        Problem(
          field: "applinks", message: "no applinks object: iOS finds no app for the site's links",
          line: nil)
      ]
    }
    guard let details = applinks["details"]?.array else {
      return [
        Problem(
          field: "applinks.details", message: "no details list", line: applinks.line(of: "details"))
      ]
    }
    var named: [(index: Int, detail: JSONValue)] = []
    var listed: [String] = []
    for (index, detail) in details.enumerated() {
      let ids =
        (detail["appIDs"]?.array?.compactMap(\.string) ?? [])
        + (detail["appID"]?.string.map { [$0] } ?? [])
      listed += ids
      if ids.contains(appID) { named.append((index, detail)) }
    }
    guard let first = named.first else {
      let field = details.first?["appIDs"] != nil ? "appIDs" : "appID"
      return [
        Problem(
          field: "applinks.details[0].\(field)",
          message:
            "lists \(listed.isEmpty ? "no app" : listed.joined(separator: ", ")), not the build's \(appID) (DEVELOPMENT_TEAM.PRODUCT_BUNDLE_IDENTIFIER): iOS opens the links in Safari",
          line: details.first?.line(of: field))
      ]
    }
    var problems: [Problem] = []
    for path in paths where !named.contains(where: { detailTakes($0.detail, path: path) }) {
      let field = first.detail["components"] != nil ? "components" : "paths"
      problems.append(
        Problem(
          field: "applinks.details[\(first.index)].\(field)",
          message: "does not take \(path): that link opens in Safari",
          line: first.detail.line(of: field)))
    }
    return problems
  }

  /// Whether `text` sends `path` to `appID`.
  public static func appleOpens(_ text: String, appID: String, path: String) -> Bool {
    appleProblems(text, appID: appID, paths: [path]).isEmpty
  }

  /// A detail's paths: `components` (iOS 13+) when present, else the legacy `paths`; the
  /// first rule that matches decides, an `exclude` (or `NOT `) one refusing.
  static func detailTakes(_ detail: JSONValue, path: String) -> Bool {
    if let components = detail["components"]?.array {
      for component in components {
        guard let pattern = component["/"]?.string else { continue }
        let caseSensitive = component["caseSensitive"]?.bool ?? true
        if wildcardMatches(pattern, path, caseSensitive: caseSensitive) {
          return component["exclude"]?.bool != true
        }
      }
      return false
    }
    for rule in detail["paths"]?.array?.compactMap(\.string) ?? [] {
      if rule.hasPrefix("NOT ") {
        if wildcardMatches(String(rule.dropFirst(4)), path) { return false }
      } else if wildcardMatches(rule, path) {
        return true
      }
    }
    return false
  }

  /// Apple's path patterns: `*` any run of characters, `?` one.
  static func wildcardMatches(_ pattern: String, _ text: String, caseSensitive: Bool = true)
    -> Bool
  {
    let p = Array(caseSensitive ? pattern : pattern.lowercased())
    let t = Array(caseSensitive ? text : text.lowercased())
    var (pi, ti) = (0, 0)
    var star: (p: Int, t: Int)?
    while ti < t.count {
      if pi < p.count, p[pi] == "?" || p[pi] == t[ti] {
        pi += 1
        ti += 1
      } else if pi < p.count, p[pi] == "*" {
        star = (pi, ti)
        pi += 1
      } else if let s = star {
        pi = s.p + 1
        ti = s.t + 1
        star = (s.p, s.t + 1)
      } else {
        return false
      }
    }
    while pi < p.count, p[pi] == "*" { pi += 1 }
    return pi == p.count
  }

  // MARK: Android

  /// What keeps `text` from verifying `package` signed with `fingerprint`; empty when it does.
  /// - Parameter debugFingerprint: the debug certificate's, to name it when it is the one listed.
  public static func androidProblems(
    _ text: String, package: String, fingerprint: String, debugFingerprint: String? = nil
  ) -> [Problem] {
    let root: JSONValue
    do {
      root = try JSONDocument(text: text, file: "assetlinks.json").value
    } catch {
      return [notJSON(error)]
    }
    guard let statements = root.array else {
      return [
        Problem(
          field: "(file)", message: "not a JSON list of statements: Android verifies nothing",
          line: nil)
      ]
    }
    let wanted = normalized(fingerprint)
    var packages: [String] = []
    // Android verifies the package when any statement grants it with the certificate; the
    // first statement's problem is reported when none does.
    var first: Problem?
    for (index, statement) in statements.enumerated() {
      let relations = statement["relation"]?.array?.compactMap(\.string) ?? []
      guard let target = statement["target"], target["namespace"]?.string == "android_app",
        let name = target["package_name"]?.string
      else { continue }
      packages.append(name)
      guard name == package else { continue }
      guard relations.contains(handleAllURLs) else {
        first =
          first
          ?? Problem(
            field: "[\(index)].relation",
            message: "does not grant \(handleAllURLs) to \(package): its links are not verified",
            line: statement.line(of: "relation"))
        continue
      }
      let listed = target["sha256_cert_fingerprints"]?.array?.compactMap(\.string) ?? []
      if listed.contains(wanted) { return [] }
      let field = "[\(index)].target.sha256_cert_fingerprints"
      let line = target.line(of: "sha256_cert_fingerprints")
      if let spelled = listed.first(where: { normalized($0) == wanted }) {
        first =
          first
          ?? Problem(
            field: field,
            message:
              "writes the signing certificate's fingerprint as \(spelled): Digital Asset Links compares upper-case colon-separated hex (\(wanted))",
            line: line)
        continue
      }
      let debug =
        debugFingerprint.map(normalized).map { listed.map(normalized).contains($0) } ?? false
      first =
        first
        ?? Problem(
          field: field,
          message:
            "lists \(listed.isEmpty ? "no certificate" : listed.joined(separator: ", "))\(debug ? " (the debug certificate's)" : ""), not the signing certificate's \(wanted): Android does not verify the App Links, they open in the browser",
          line: line)
    }
    if let first { return [first] }
    return [
      Problem(
        field: "[].target.package_name",
        message:
          "names \(packages.isEmpty ? "no android_app" : packages.joined(separator: ", ")), not the build's \(package): Android does not verify the App Links",
        line: statements.first?["target"]?.line(of: "package_name"))
    ]
  }

  /// A file that does not parse, with where.
  private static func notJSON(_ error: Error) -> Problem {
    if let diagnostic = error as? Diagnostic {
      return Problem(
        field: "(file)", message: "is not JSON: \(diagnostic.message)",
        line: diagnostic.location?.line)
    }
    return Problem(field: "(file)", message: "is not JSON", line: nil)
  }

  /// `AA:BB:…`, upper case, whatever the separators.
  public static func normalized(_ fingerprint: String) -> String {
    let hex = fingerprint.uppercased().filter { $0.isHexDigit }
    var out = ""
    for (index, character) in hex.enumerated() {
      if index > 0 && index % 2 == 0 { out.append(":") }
      out.append(character)
    }
    return out
  }

  /// The SHA-256 fingerprint of the first certificate of a PEM text, nil when none parses.
  public static func fingerprint(ofPEM pem: String) -> String? {
    let lines = pem.split(whereSeparator: \.isNewline).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard let start = lines.firstIndex(of: "-----BEGIN CERTIFICATE-----"),
      let end = lines[start...].firstIndex(of: "-----END CERTIFICATE-----"),
      let der = Data(base64Encoded: lines[(start + 1)..<end].joined())
    else { return nil }
    return normalized(Digest.sha256Hex(Array(der)))
  }

  /// Android's `pathPattern`: `.` any character, `*` the preceding one repeated (`.*`, `x*`).
  public static func androidPatternMatches(_ pattern: String, _ path: String) -> Bool {
    let p = Array(pattern)
    let t = Array(path)
    func match(_ pi: Int, _ ti: Int) -> Bool {
      if pi == p.count { return ti == t.count }
      let repeated = pi + 1 < p.count && p[pi + 1] == "*"
      let one = ti < t.count && (p[pi] == "." || p[pi] == t[ti])
      if repeated { return match(pi + 2, ti) || (one && match(pi, ti + 1)) }
      return one && match(pi + 1, ti + 1)
    }
    return match(0, 0)
  }
}
