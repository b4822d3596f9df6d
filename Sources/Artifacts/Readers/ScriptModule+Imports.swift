import Foundation

/// What a module takes from its neighbours: `import { a, b as c } from "./x"`, each local
/// name bound to the function or constant the other file exports, so that a validator whose
/// helpers live beside it (`import { isNonPublicHost } from "./hosts"`) is run as written
/// rather than left unanswered.
struct ScriptImport: Sendable, Equatable {
  /// The module imported from, shared by every name taken from it.
  let module: ScriptModuleBox
  /// The name the other file exports it under.
  let name: String
}

/// A parsed module held by reference: a module's imports hold other modules.
final class ScriptModuleBox: Sendable, Equatable {
  let module: ScriptModule
  init(_ module: ScriptModule) { self.module = module }
  static func == (a: ScriptModuleBox, b: ScriptModuleBox) -> Bool { a === b }
}

/// Reads the files a module imports, relative to the importing file's path in the repository.
struct ScriptModuleLoader: Sendable {
  /// The text of a repository path, nil when there is no such file.
  let read: @Sendable (String) -> String?
  /// How many imports deep a chain is followed: a validator's helpers are one file away.
  static let depth = 3

  /// The module at `path` with its imports bound, nil when the file is not there.
  func module(at path: String, depth: Int = 0) -> ScriptModule? {
    guard let text = read(path) else { return nil }
    return ScriptModule(text, path: path, loader: depth < Self.depth ? self : nil, depth: depth)
  }

  /// The file an import specifier names, tried as TypeScript and JavaScript resolve it.
  func resolve(_ specifier: String, from path: String) -> String? {
    // A workspace package of the monorepo (`@openmapx/core/server-env`): its sources under
    // `packages/<name>/src`, as the workspace's TypeScript paths map it.
    if specifier.hasPrefix("@"), !specifier.hasPrefix("@/") {
      let parts = specifier.split(separator: "/").map(String.init)
      let name = parts.prefix(2).joined(separator: "/")
      // Only the workspace's own package of that name, not a dependency's.
      guard parts.count >= 2, let manifest = read("packages/\(parts[1])/package.json"),
        manifest.contains("\"name\": \"\(name)\"") || manifest.contains("\"name\":\"\(name)\"")
      else { return nil }
      let inside = parts.dropFirst(2).joined(separator: "/")
      let base = ("packages/\(parts[1])/src" + (inside.isEmpty ? "" : "/" + inside))
        .replacingOccurrences(of: #"\.(js|mjs)$"#, with: "", options: .regularExpression)
      return [base + ".ts", base + "/index.ts", base + ".js"].first { read($0) != nil }
    }
    guard specifier.hasPrefix("./") || specifier.hasPrefix("../") else { return nil }
    var parts = path.split(separator: "/").dropLast().map(String.init)
    for part in specifier.split(separator: "/") {
      switch part {
      case ".": continue
      case "..": if !parts.isEmpty { parts.removeLast() }
      default: parts.append(String(part))
      }
    }
    let base = parts.joined(separator: "/")
    let stem = base.replacingOccurrences(
      of: #"\.(js|mjs)$"#, with: "", options: .regularExpression)
    for candidate in [base, stem + ".ts", stem + ".tsx", stem + ".js", stem + "/index.ts"]
    where read(candidate) != nil {
      return candidate
    }
    return nil
  }

  /// The named value imports of `code` (comments and strings' contents already blanked out
  /// except the specifiers), by local name.
  func imports(of code: String, path: String, depth: Int) -> [String: ScriptImport] {
    guard
      let pattern = try? NSRegularExpression(
        pattern: #"import\s+(?!type\b)\{([^}]*)\}\s*from\s*["']([^"']+)["']"#)
    else { return [:] }
    var out: [String: ScriptImport] = [:]
    for match in pattern.matches(in: code, range: NSRange(code.startIndex..., in: code)) {
      guard let names = Range(match.range(at: 1), in: code),
        let specifier = Range(match.range(at: 2), in: code),
        let file = resolve(String(code[specifier]), from: path),
        let module = self.module(at: file, depth: depth + 1)
      else { continue }
      let box = ScriptModuleBox(module)
      for entry in code[names].split(separator: ",") {
        let words = entry.split(whereSeparator: \.isWhitespace).map(String.init)
        guard let first = words.first, first != "type" else { continue }
        let local = words.count == 3 && words[1] == "as" ? words[2] : first
        out[local] = ScriptImport(module: box, name: first)
      }
    }
    return out
  }
}
