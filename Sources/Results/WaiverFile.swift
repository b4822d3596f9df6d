import Foundation
import QualifyCore
import ResultModel

/// Reads `qualify-waivers.json` (docs/release-report.md): the expected failures a release owner
/// accepts, each with a reason, an owner and an expiry date. A malformed file, an unknown
/// check or control, a missing field or a date that is not a date is bad input (exit 2)
/// located at its line.
public enum WaiverFile {
  public static let name = "qualify-waivers.json"

  /// The waivers of the app at `directory`, nil when it has no waiver file; each marked
  /// expired when its last day is before `day` (`YYYY-MM-DD`).
  /// - Parameter controls: every scenario id of the catalogue, with its controls' names.
  public static func load(
    directory: URL, display: String, day: String, controls: [String: Set<String>]
  ) throws -> [Waiver]? {
    let url = directory.appendingPathComponent(name)
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    // Confined like every app file: a link out of the app is not followed.
    let resolved = url.resolvingSymlinksInPath().path
    let base = directory.resolvingSymlinksInPath().path
    guard resolved.hasPrefix(base + "/") else {
      throw InputError(
        "\(display) is a link to \(resolved), outside the app: qualify does not follow it")
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    guard size <= 1 << 20, let data = FileManager.default.contents(atPath: url.path) else {
      throw InputError("\(display) cannot be read, or is larger than a waiver file can be (1 MiB)")
    }
    return try parse(
      String(decoding: data, as: UTF8.self), file: display, day: day, controls: controls)
  }

  public static func parse(
    _ text: String, file: String, day: String, controls: [String: Set<String>]
  ) throws -> [Waiver] {
    let document: JSONDocument
    do {
      document = try JSONDocument(text: text, file: file)
    } catch let diagnostic as Diagnostic {
      throw InputError("\(file) is not valid JSON", diagnostics: [diagnostic])
    }
    var diagnostics: [Diagnostic] = []
    func fail(_ line: Int, _ message: String, hint: String? = nil) {
      diagnostics.append(
        Diagnostic.error(
          at: FileLocation(file: file, line: line, column: 1), message, hint: hint))
    }
    guard let entries = document.value["waivers"]?.array else {
      fail(1, "a waiver file is an object with a \"waivers\" array")
      throw InputError("\(file) has errors", diagnostics: diagnostics)
    }
    var waivers: [Waiver] = []
    for entry in entries {
      guard case .object(let members) = entry else {
        fail(document.value.line(of: "waivers") ?? 1, "each waiver is an object")
        continue
      }
      let line = members.first?.line ?? document.value.line(of: "waivers") ?? 1
      if let waiver = readWaiver(
        entry, members: members, line: line, file: file, day: day, controls: controls,
        diagnostics: &diagnostics)
      {
        waivers.append(waiver)
      }
    }
    if !diagnostics.isEmpty { throw InputError("\(file) has errors", diagnostics: diagnostics) }
    return waivers
  }

  /// The keys a waiver may have.
  static let allowed: Set<String> = [
    "check", "platform", "control", "reason", "owner", "expires", "reference", "allowOnRelease",
  ]

  /// One entry of the file, its mistakes added to `diagnostics`; nil when it is not a waiver.
  static func readWaiver(
    _ entry: JSONValue, members: [(key: String, value: JSONValue, line: Int)], line: Int,
    file: String, day: String,
    controls: [String: Set<String>], diagnostics: inout [Diagnostic]
  ) -> Waiver? {
    var found: [Diagnostic] = []
    defer { diagnostics += found }
    func fail(_ line: Int, _ message: String, hint: String? = nil) {
      found.append(
        Diagnostic.error(
          at: FileLocation(file: file, line: line, column: 1), message, hint: hint))
    }
    for member in members where !allowed.contains(member.key) {
      fail(
        member.line, "unknown key \"\(member.key)\"",
        hint: Suggestions.closest(to: member.key, among: allowed.sorted()).map {
          "did you mean \"\($0)\"?"
        })
    }
    func text(_ key: String, required: Bool) -> String? {
      let value = entry[key]
      if let string = value?.string?.trimmingCharacters(in: .whitespacesAndNewlines),
        !string.isEmpty
      {
        return string
      }
      if required || value != nil {
        fail(
          entry.line(of: key) ?? line,
          value == nil ? "a waiver needs \"\(key)\"" : "\"\(key)\" must be a non-empty string")
      }
      return nil
    }
    let check = text("check", required: true)
    let reason = text("reason", required: true)
    let owner = text("owner", required: true)
    let expires = text("expires", required: true)
    let reference = text("reference", required: false)
    let control = text("control", required: false)
    var platform: Platform?
    if let name = text("platform", required: false) {
      platform = Platform(rawValue: name)
      if platform == nil {
        fail(entry.line(of: "platform") ?? line, "unknown platform \"\(name)\" (ios or android)")
      }
    }
    if let check, controls[check] == nil {
      fail(
        entry.line(of: "check") ?? line, "no scenario \"\(check)\"",
        hint: Suggestions.closest(to: check, among: controls.keys.sorted()).map {
          "did you mean \"\($0)\"?"
        })
    } else if let check, let control, controls[check]?.contains(control) != true {
      fail(
        entry.line(of: "control") ?? line, "\(check) has no control \"\(control)\"",
        hint: Suggestions.closest(to: control, among: (controls[check] ?? []).sorted()).map {
          "did you mean \"\($0)\"?"
        })
    }
    if let expires, !isDay(expires) {
      fail(
        entry.line(of: "expires") ?? line,
        "\"expires\" must be a date YYYY-MM-DD, got \"\(expires)\"")
    }
    var allowOnRelease: Bool?
    if let value = entry["allowOnRelease"] {
      allowOnRelease = value.bool
      if allowOnRelease == nil {
        fail(entry.line(of: "allowOnRelease") ?? line, "\"allowOnRelease\" must be true or false")
      }
    }
    guard let check, let reason, let owner, let expires, isDay(expires) else { return nil }
    var waiver = Waiver(
      check: check, platform: platform, control: control, reason: reason, owner: owner,
      expires: expires, reference: reference, location: "\(file):\(line)")
    waiver.expired = expires < day
    waiver.allowOnRelease = allowOnRelease
    return waiver
  }

  /// Whether `text` is a real calendar day written `YYYY-MM-DD`.
  static func isDay(_ text: String) -> Bool {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
      (1...12).contains(month), day >= 1
    else { return false }
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
    return day <= days[month - 1]
  }
}
