import Foundation

/// Where human output goes, and whether it may use colour and rewrite lines.
final class Terminal: @unchecked Sendable {
  let handle: FileHandle
  let isTTY: Bool
  let colors: Bool
  private let lock = NSLock()
  private var liveLine = false

  init(fileDescriptor: Int32) {
    handle = fileDescriptor == STDERR_FILENO ? FileHandle.standardError : FileHandle.standardOutput
    isTTY = isatty(fileDescriptor) == 1
    let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
    let dumb = ProcessInfo.processInfo.environment["TERM"] == "dumb"
    colors = isTTY && !noColor && !dumb
  }

  static let standardOutput = Terminal(fileDescriptor: STDOUT_FILENO)
  static let standardError = Terminal(fileDescriptor: STDERR_FILENO)

  func write(_ text: String) {
    lock.lock()
    defer { lock.unlock() }
    clearLiveLine()
    handle.write(Data(text.utf8))
  }

  func line(_ text: String = "") { write(text + "\n") }

  /// A line that the next output replaces (progress on a TTY); nothing otherwise.
  func live(_ text: String) {
    guard isTTY else { return }
    lock.lock()
    defer { lock.unlock() }
    clearLiveLine()
    handle.write(Data(("\r" + text.prefix(max(20, columns - 1))).utf8))
    liveLine = true
  }

  private func clearLiveLine() {
    if liveLine {
      handle.write(Data("\r\u{1B}[2K".utf8))
      liveLine = false
    }
  }

  var columns: Int {
    var size = winsize()
    if ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
      return Int(size.ws_col)
    }
    return 100
  }

  enum Style: String {
    case red = "31"
    case green = "32"
    case yellow = "33"
    case cyan = "36"
    case bold = "1"
    case dim = "2"
  }

  func style(_ text: String, _ styles: Style...) -> String {
    guard colors, !styles.isEmpty else { return text }
    return "\u{1B}[\(styles.map(\.rawValue).joined(separator: ";"))m\(text)\u{1B}[0m"
  }
}
