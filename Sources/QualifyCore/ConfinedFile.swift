import Foundation

/// Reads files of a tree qualify does not trust (an app repository a pull request changes)
/// without ever leaving it: a path is resolved as the kernel resolves it (every symbolic link
/// and `..` followed) before it is compared with the tree's own resolved roots, and only a
/// regular file of bounded size is read. docs/threat-model.md says why.
public enum ConfinedFile {
  /// Why a file of the tree is not read. The refusal never carries the file's bytes, so a
  /// diagnostic built from it cannot quote a file from elsewhere.
  public enum Refusal: Error, Equatable, Sendable {
    /// The path resolves outside every root (a link, `..`, an absolute path).
    case outside(resolved: String)
    /// A directory, a device, a FIFO or a socket: nothing a configuration file is.
    case notRegular
    case tooLarge(size: Int, limit: Int)
    case unreadable(errno: Int32)

    /// The refusal in words, for a message about `display`.
    public func describe(_ display: String) -> String {
      switch self {
      case .outside(let resolved):
        return "\(display) resolves to \(resolved), outside the app: qualify does not read it"
      case .notRegular:
        return "\(display) is not a regular file: qualify reads only regular files of the app"
      case .tooLarge(let size, let limit):
        return "\(display) is \(size) bytes, over qualify's limit of \(limit) for such a file"
      case .unreadable(let code):
        return "\(display) cannot be read: \(String(cString: strerror(code)))"
      }
    }
  }

  /// The path with every link and `..` resolved, nil when some component does not exist.
  public static func resolved(_ path: String) -> String? {
    guard let pointer = realpath(path, nil) else { return nil }
    defer { free(pointer) }
    return String(cString: pointer)
  }

  /// Whether `path` (already resolved) is `root` or below it (`root` resolved too).
  public static func isInside(_ path: String, _ root: String) -> Bool {
    root == "/" || path == root || path.hasPrefix(root + "/")
  }

  /// The bytes of `path`, nil when nothing is there (a dangling link counts as nothing).
  /// - Parameters:
  ///   - roots: resolved directories the file must resolve into (one suffices).
  ///   - limit: the largest size read.
  /// - Throws: `Refusal` for a file outside the roots, not regular, too large or unreadable.
  public static func read(_ path: String, within roots: [String], limit: Int) throws(Refusal)
    -> Data?
  {
    var link = stat()
    guard lstat(path, &link) == 0 else { return nil }
    guard let real = resolved(path) else {
      // A link whose target is missing: nothing to read, and nothing to name.
      return nil
    }
    guard roots.contains(where: { isInside(real, $0) }) else {
      throw .outside(resolved: real)
    }
    let descriptor = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else { throw .unreadable(errno: errno) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw .unreadable(errno: errno) }
    guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notRegular }
    guard info.st_size <= limit else { throw .tooLarge(size: Int(info.st_size), limit: limit) }
    var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
    var total = 0
    while total < bytes.count {
      let count = bytes.withUnsafeMutableBytes {
        Foundation.read(descriptor, $0.baseAddress.map { $0 + total }, $0.count - total)
      }
      if count < 0 {
        if errno == EINTR { continue }
        throw .unreadable(errno: errno)
      }
      if count == 0 { break }
      total += count
    }
    // A file that grew while read is still read only up to its size at open.
    return Data(bytes.prefix(total))
  }

  /// The repository an app directory belongs to: the nearest directory at or above it that
  /// holds `.git` (a work tree or a worktree's `.git` file), else the app directory itself.
  /// An app's `base` must stay inside it.
  public static func repositoryRoot(of directory: String) -> String {
    var current = directory
    while true {
      var info = stat()
      if lstat(current + "/.git", &info) == 0 { return current }
      let parent = (current as NSString).deletingLastPathComponent
      if parent == current || parent.isEmpty { return directory }
      current = parent
    }
  }
}
