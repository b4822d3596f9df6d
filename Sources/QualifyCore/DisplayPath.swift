import Foundation

/// How every output names a file: relative to the working directory, never as an absolute
/// machine path, so that a report, a JUnit file or a reproduce command reads the same on the
/// CI machine and on a laptop, and can be typed or clicked where it was printed.
public enum DisplayPath {
  /// `path` relative to `base` (the working directory by default): `Scenarios/apps/messages`
  /// below it, `../messages-copy` beside it. A path relative already is returned as it is.
  ///
  /// A path that shares no folder with `base` but the root keeps its absolute form: climbing
  /// to `/` and down again would spell the same machine path with `..` in front.
  public static func of(_ path: String, from base: String = currentDirectory) -> String {
    guard path.hasPrefix("/") else { return path }
    let path = URL(fileURLWithPath: path).standardizedFileURL.path
    return sharesFolder(path, base) ? relative(path, from: base) : path
  }

  /// The relative form when `path` shares a folder other than the root with `base`, nil
  /// otherwise (it could only be named by its machine path).
  public static func relativeIfNear(_ path: String, from base: String = currentDirectory)
    -> String?
  {
    guard path.hasPrefix("/") else { return path }
    return sharesFolder(path, base) ? relative(path, from: base) : nil
  }

  private static func sharesFolder(_ path: String, _ base: String) -> Bool {
    let target = components(path)
    let origin = components(base)
    return origin.isEmpty || (!target.isEmpty && target[0] == origin[0])
  }

  /// `url` as `of(_:from:)` shows its path.
  public static func of(_ url: URL, from base: String = currentDirectory) -> String {
    of(url.path, from: base)
  }

  /// The working directory, without a trailing slash.
  public static var currentDirectory: String {
    FileManager.default.currentDirectoryPath
  }

  /// `path` relative to `base`, both absolute: the components after their common prefix,
  /// with one `..` for each of `base`'s components past it. The same folder is `.`.
  public static func relative(_ path: String, from base: String) -> String {
    let target = components(path)
    let origin = components(base)
    var common = 0
    while common < min(target.count, origin.count) && target[common] == origin[common] {
      common += 1
    }
    let parts = Array(repeating: "..", count: origin.count - common) + target[common...]
    return parts.isEmpty ? "." : parts.joined(separator: "/")
  }

  private static func components(_ path: String) -> [String] {
    path.split(separator: "/").map(String.init).filter { $0 != "." && !$0.isEmpty }
  }
}
