import QualifyCore

/// A command's options as declared for parsing and for `--help`.
struct OptionSpec {
  var name: String
  var valueName: String?
  var help: String
  var repeatable = false

  static func flag(_ name: String, _ help: String) -> OptionSpec {
    OptionSpec(name: name, valueName: nil, help: help)
  }

  static func value(_ name: String, _ valueName: String, _ help: String, repeatable: Bool = false)
    -> OptionSpec
  {
    OptionSpec(name: name, valueName: valueName, help: help, repeatable: repeatable)
  }
}

/// Parsed command-line options: `--name value`, `--name=value`, flags, positionals.
struct ParsedOptions {
  var values: [String: [String]] = [:]
  var flags: Set<String> = []
  var positionals: [String] = []

  func value(_ name: String) -> String? { values[name]?.last }
  func all(_ name: String) -> [String] { values[name] ?? [] }
  func has(_ name: String) -> Bool { flags.contains(name) }

  /// Parses `arguments` against `specs`; an unknown option is bad input with a suggestion. A
  /// command takes at most `positionals` bare arguments: one more is bad input, not ignored —
  /// `qualify check-app ./repo` checking the bundled sample would be a false green.
  static func parse(
    _ arguments: [String], _ specs: [OptionSpec], command: String, positionals: Int = 0
  ) throws -> ParsedOptions {
    var parsed = ParsedOptions()
    var index = 0
    var onlyPositionals = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
        guard parsed.positionals.count < positionals else {
          throw InputError(
            "unexpected argument '\(argument)' for \(command)",
            hint: specs.contains { $0.name == "app" }
              ? "to name the app's folder: \(command) --app \(argument)" : "see: \(command) --help")
        }
        parsed.positionals.append(argument)
        continue
      }
      if argument == "--" {
        onlyPositionals = true
        continue
      }
      var name = argument
      var inline: String?
      if let eq = argument.firstIndex(of: "=") {
        name = String(argument[..<eq])
        inline = String(argument[argument.index(after: eq)...])
      }
      if name == "-h" { name = "--help" }
      guard let spec = specs.first(where: { "--" + $0.name == name }) else {
        let known = specs.map { "--" + $0.name }
        throw InputError(
          "unknown option '\(name)' for \(command)",
          hint: Suggestions.closest(to: name, among: known).map { "did you mean '\($0)'?" }
            ?? "see: \(command) --help")
      }
      if spec.valueName == nil {
        if inline != nil { throw InputError("option '\(name)' takes no value") }
        parsed.flags.insert(spec.name)
        continue
      }
      let value: String
      if let inline {
        value = inline
      } else {
        guard index < arguments.count else {
          throw InputError(
            "option '\(name)' needs a value (\(spec.valueName ?? "VALUE"))",
            hint: "see: \(command) --help")
        }
        value = arguments[index]
        index += 1
      }
      if !spec.repeatable && parsed.values[spec.name] != nil {
        throw InputError("option '\(name)' is given twice")
      }
      parsed.values[spec.name, default: []].append(value)
    }
    return parsed
  }
}

/// Renders `--help` text.
func helpText(usage: String, summary: String, options: [OptionSpec], footer: String = "") -> String
{
  var out = "USAGE: \(usage)\n\n\(summary)\n"
  if !options.isEmpty {
    out += "\nOPTIONS:\n"
    let rows = options.map { spec -> (String, String) in
      ("--\(spec.name)" + (spec.valueName.map { " \($0)" } ?? ""), spec.help)
    }
    let width = min(28, (rows.map { $0.0.count }.max() ?? 0) + 2)
    for (left, right) in rows {
      let padded =
        left.count >= width
        ? left + "\n" + String(repeating: " ", count: width + 2)
        : left + String(repeating: " ", count: width - left.count)
      out += "  \(padded)\(right)\n"
    }
  }
  if !footer.isEmpty { out += "\n" + footer + "\n" }
  return out
}
