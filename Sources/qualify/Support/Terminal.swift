import Foundation
import QualifyCore

/// Where human output goes, and whether it may use colour and rewrite lines.
final class Terminal: Sendable {
  let descriptor: Int32
  let isTTY: Bool
  let colors: Bool
  /// Whether a live line is on screen; held while writing, so lines never interleave.
  private let liveLine = Locked(false)
  /// The `errno` of the first write that failed (a closed pipe, a full disk, a closed
  /// descriptor): nothing more is written, and the command ends with exit 4.
  private let failure = Locked<Int32?>(nil)
  /// The descriptor was closed when qualify started (`>&-`); it now holds /dev/null so that no
  /// file qualify opens (the store) can take its number and receive terminal output.
  private let closedAtStart: Bool

  init(fileDescriptor: Int32) {
    descriptor = fileDescriptor
    if fcntl(fileDescriptor, F_GETFD) == -1 && errno == EBADF {
      let placeholder = open("/dev/null", O_RDWR)
      if placeholder >= 0 && placeholder != fileDescriptor {
        dup2(placeholder, fileDescriptor)
        close(placeholder)
      }
      closedAtStart = true
    } else {
      closedAtStart = false
    }
    isTTY = isatty(fileDescriptor) == 1
    let noColor = ProcessInfo.processInfo.environment["NO_COLOR"].map { !$0.isEmpty } ?? false
    let dumb = ProcessInfo.processInfo.environment["TERM"] == "dumb"
    colors = isTTY && !noColor && !dumb
  }

  static let standardOutput = Terminal(fileDescriptor: STDOUT_FILENO)
  static let standardError = Terminal(fileDescriptor: STDERR_FILENO)

  /// Takes the standard descriptors before anything opens a file, and makes a closed pipe an
  /// error a write returns (`EPIPE`) instead of a signal that kills qualify mid-run.
  static func prepare() {
    signal(SIGPIPE, SIG_IGN)
    _ = standardOutput
    _ = standardError
  }

  /// The `errno` of the first failed write, nil while every write went through.
  var writeFailure: Int32? { failure.withLock { $0 } }

  /// What a failed write means for the user, nil when none failed.
  var failureMessage: String? {
    writeFailure.map { code in
      let name = descriptor == STDOUT_FILENO ? "standard output" : "standard error"
      return "could not write to \(name): \(String(cString: strerror(code)))"
    }
  }

  func write(_ text: String) {
    liveLine.withLock { live in
      clearLiveLine(&live)
      emit(Terminal.neutralised(text))
    }
  }

  /// Writes every byte or records why not; a failed terminal never stops the run, whose
  /// results still reach the store.
  private func emit(_ text: String) {
    failure.withLock { failure in
      guard failure == nil else { return }
      if closedAtStart {
        failure = EBADF
        return
      }
      var bytes = Array(text.utf8)[...]
      while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes {
          Foundation.write(descriptor, $0.baseAddress, $0.count)
        }
        if written < 0 {
          if errno == EINTR || errno == EAGAIN { continue }
          failure = errno
          return
        }
        bytes = bytes.dropFirst(written)
      }
    }
  }

  /// `text` with every control character a file or a server could have put in it made
  /// visible (`\u{1B}` → `␛`), keeping only the colour codes qualify writes itself
  /// (`ESC [ digits ; … m`), newlines and tabs: an app file must not move the cursor, retitle
  /// the terminal or hide a line of the verdict.
  static func neutralised(_ text: String) -> String {
    var out = String.UnicodeScalarView()
    let scalars = Array(text.unicodeScalars)
    var index = 0
    while index < scalars.count {
      let scalar = scalars[index]
      if scalar == "\u{1B}" {
        // Our own SGR sequence, ESC [ codes m with only the codes `Style` writes: an input's
        // `ESC[8m` (concealed text) is shown, not obeyed.
        var end = index + 1
        if end < scalars.count, scalars[end] == "[" {
          end += 1
          while end < scalars.count, ("0"..."9").contains(scalars[end]) || scalars[end] == ";" {
            end += 1
          }
          let codes = String(String.UnicodeScalarView(scalars[(index + 2)..<end])).split(
            separator: ";", omittingEmptySubsequences: false)
          if end < scalars.count, scalars[end] == "m",
            codes.allSatisfy({ $0 == "0" || Style(rawValue: String($0)) != nil })
          {
            out.append(contentsOf: scalars[index...end])
            index = end + 1
            continue
          }
        }
        out.append("␛")
      } else if scalar == "\n" || scalar == "\t" {
        out.append(scalar)
      } else if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
        out.append(contentsOf: String(format: "\\x%02X", scalar.value).unicodeScalars)
      } else if (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
      {
        // Bidirectional overrides reorder what the reader sees.
        out.append(contentsOf: String(format: "\\u{%04X}", scalar.value).unicodeScalars)
      } else {
        out.append(scalar)
      }
      index += 1
    }
    return String(out)
  }

  func line(_ text: String = "") { write(text + "\n") }

  /// A line that the next output replaces (progress on a TTY); nothing otherwise, nor with
  /// `NO_COLOR` or a dumb terminal, where output stays plain lines.
  func live(_ text: String) {
    guard colors else { return }
    let width = max(20, columns - 1)
    liveLine.withLock { live in
      clearLiveLine(&live)
      emit("\r" + Terminal.neutralised(String(text.prefix(width))))
      live = true
    }
  }

  private func clearLiveLine(_ live: inout Bool) {
    if live {
      emit("\r\u{1B}[2K")
      live = false
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
