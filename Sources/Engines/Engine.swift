import Foundation
import HTTP

/// A browser engine of the family a platform's WebView is: Chromium for Android's WebView,
/// WebKit for iOS's WKWebView, each a desktop build from Debian driven over W3C WebDriver.
public enum EngineKind: String, Sendable, CaseIterable {
  case chromium, webkit

  public var displayName: String { self == .chromium ? "Chromium" : "WebKit" }

  /// What the engine stands for on a device.
  public var standsFor: String {
    self == .chromium ? "Android's WebView (Chromium)" : "iOS's WKWebView (WebKit)"
  }

  /// The Debian packages that give the engine and its driver.
  public var packages: [String] {
    self == .chromium ? ["chromium", "chromium-driver"] : ["webkit2gtk-driver", "xvfb"]
  }

  public var installHint: String { "apt-get install " + packages.joined(separator: " ") }

  /// Where each program the engine needs is, or what is missing (nil: nothing).
  public func missing(in environment: [String: String] = ProcessInfo.processInfo.environment)
    -> String?
  {
    var lacking: [String] = []
    switch self {
    case .chromium:
      if EngineKind.which("chromedriver", environment) == nil { lacking.append("chromedriver") }
      if EngineKind.chromiumBinary(environment) == nil { lacking.append("chromium") }
    case .webkit:
      if EngineKind.which("WebKitWebDriver", environment) == nil {
        lacking.append("WebKitWebDriver")
      }
      if EngineKind.miniBrowser == nil { lacking.append("MiniBrowser") }
      if environment["DISPLAY"] == nil && EngineKind.which("Xvfb", environment) == nil {
        lacking.append("Xvfb (no DISPLAY)")
      }
    }
    return lacking.isEmpty ? nil : lacking.joined(separator: ", ")
  }

  /// A phone's window (a 6.1–6.7" handset in CSS pixels): the thread shows as a device
  /// shows it, and the screenshot kept as evidence stays small.
  public static let phone = (width: 412, height: 892)

  /// The session capabilities: headless, loopback only, the engine's own binary.
  func capabilities(_ environment: [String: String]) -> [String: Any] {
    switch self {
    case .chromium:
      return [
        "browserName": "chrome",
        "goog:chromeOptions": [
          "binary": EngineKind.chromiumBinary(environment) ?? "chromium",
          "args": [
            "--headless=new", "--no-sandbox", "--disable-gpu",
            "--window-size=\(EngineKind.phone.width),\(EngineKind.phone.height)",
            // Android's WebView draws overlay scrollbars that take no room: a desktop
            // scrollbar would narrow the thread once it grows, and reflow every body in it.
            "--hide-scrollbars",
            "--no-first-run", "--disable-background-networking", "--disable-sync",
            "--disable-component-update", "--disable-default-apps",
          ],
        ] as [String: Any],
      ]
    case .webkit:
      return [
        "browserName": "MiniBrowser",
        "webkitgtk:browserOptions": [
          "binary": EngineKind.miniBrowser ?? "MiniBrowser", "args": ["--automation"],
        ] as [String: Any],
      ]
    }
  }

  static func which(_ program: String, _ environment: [String: String]) -> String? {
    let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") {
      let candidate = "\(directory)/\(program)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  static func chromiumBinary(_ environment: [String: String]) -> String? {
    which("chromium", environment) ?? which("chromium-browser", environment)
  }

  /// WebKitGTK's MiniBrowser, which WebKitWebDriver automates.
  static var miniBrowser: String? {
    let lib = "/usr/lib"
    let arches = (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []
    for arch in arches.sorted() {
      for version in ["webkit2gtk-4.1", "webkit2gtk-4.0", "webkitgtk-6.0"] {
        let candidate = "\(lib)/\(arch)/\(version)/MiniBrowser"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      }
    }
    return nil
  }
}

/// A driver process on a loopback port, with its browser session, and the X server WebKit
/// needs where the machine has no display. Started once, reused, stopped at exit.
final class EngineProcess: @unchecked Sendable {
  let kind: EngineKind
  let endpoint: String
  let session: WebDriverSession
  /// How long the driver and the browser took to be ready.
  let startSeconds: Double
  /// The driver's and the browser's temporary folder (their `TMPDIR`): chromedriver's
  /// profile and Chromium's singleton socket go there, not into the machine's /tmp, and the
  /// watchdog removes it when it ends the engine. A driver ended without its session's DELETE
  /// (every stop is a kill) leaves its profile behind: 3 MB a run, gigabytes on a CI runner.
  let scratch: URL
  private let processes: [Process]

  init(kind: EngineKind, transcript: (@Sendable (String) -> Void)?) throws {
    self.kind = kind
    let began = Date()
    var environment = ProcessInfo.processInfo.environment
    var processes: [Process] = []
    // An X server of its own whenever there is one to start: hostile pages never open on a
    // person's display.
    if kind == .webkit && EngineKind.which("Xvfb", environment) != nil {
      let (xvfb, display) = try EngineProcess.startXvfb(environment)
      processes.append(xvfb)
      environment["DISPLAY"] = ":\(display)"
    }
    let port: UInt16
    do {
      port = try EngineProcess.freePort()
      scratch = try EngineProcess.makeScratch()
    } catch {
      EngineProcess.end(processes)
      throw error
    }
    let scratch = scratch
    let driver: Process
    switch kind {
    case .chromium:
      // chromedriver listens on loopback and takes connections from it only by default.
      driver = EngineProcess.watched(
        EngineKind.which("chromedriver", environment) ?? "chromedriver",
        ["--port=\(port)", "--silent"], removing: scratch)
    case .webkit:
      driver = EngineProcess.watched(
        EngineKind.which("WebKitWebDriver", environment) ?? "WebKitWebDriver",
        ["--port=\(port)", "--host=local"], removing: scratch)
    }
    environment["TMPDIR"] = scratch.path
    driver.environment = environment
    driver.standardOutput = FileHandle.nullDevice
    driver.standardError = FileHandle.nullDevice
    do {
      try driver.run()
    } catch {
      EngineProcess.end(processes)
      try? FileManager.default.removeItem(at: scratch)
      throw WebDriverError("not started", "\(kind.displayName)'s driver: \(error)")
    }
    processes.append(driver)
    self.processes = processes
    endpoint = "http://127.0.0.1:\(port)"
    let client = try HTTPClient(
      configuration: HTTPClient.Configuration(
        origins: ["127.0.0.1:\(port)": port], timeout: 60, userAgent: "qualify-webdriver"))
    let deadline = Date().addingTimeInterval(20)
    while !WebDriverSession.ready(endpoint: endpoint, client: client) {
      guard Date() < deadline, driver.isRunning else {
        EngineProcess.end(processes)
        throw WebDriverError("not started", "\(kind.displayName)'s driver never became ready")
      }
      usleep(20_000)
    }
    do {
      session = try WebDriverSession.open(
        endpoint: endpoint, capabilities: kind.capabilities(environment), client: client,
        transcript: transcript)
    } catch {
      EngineProcess.end(processes)
      throw error
    }
    // MiniBrowser opens a desktop-sized window whatever its arguments; Chromium's is set by
    // its own. A driver that cannot resize keeps its size: the render does not depend on it.
    try? session.setWindowSize(width: EngineKind.phone.width, height: EngineKind.phone.height)
    startSeconds = Date().timeIntervalSince(began)
  }

  /// Ends the driver with its browser, then the X server, through their watchdogs. No
  /// request to the driver and no wait: this runs at exit, where a wedged driver would hold
  /// the exit for the client's timeout and Foundation's waitUntilExit spins forever.
  func stop() {
    EngineProcess.end(processes.reversed())
  }

  /// Tells each watchdog to end its program (an engine that failed to start).
  static func end(_ processes: [Process]) {
    for process in processes where process.isRunning {
      kill(process.processIdentifier, SIGTERM)
    }
  }

  /// `program` under a watchdog shell that ends it when qualify ends, however qualify ends
  /// (a crash or a SIGKILL runs no exit handler), or when the watchdog is told to stop; then
  /// removes `removing`, the folder the program wrote its temporary files to.
  static func watched(_ program: String, _ arguments: [String], removing: URL? = nil)
    -> Process
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments =
      [
        "-c",
        // KILL: a driver may have inherited an ignored SIGTERM from the process that ran it.
        // setsid: the program leads a process group of its own, which the browser it starts
        // joins, so one kill of the group ends both.
        // (dash's kill takes `-9 -PGID`, not `--`.)
        // The short sleep lets the killed group go before its folder is removed: a browser
        // still unwinding could otherwise recreate a file in it.
        #"parent=$PPID; scratch=$1; shift; end() { kill -9 -$child 2>/dev/null; if [ -n "$scratch" ]; then sleep 0.1; rm -rf "$scratch"; fi; }; setsid "$@" & child=$!; trap 'end; exit 0' TERM; while kill -0 $parent 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 0.2; done; end"#,
        "qualify-engine", removing?.path ?? "", program,
      ] + arguments
    return process
  }

  /// A fresh owner-only folder in the machine's temporary directory for an engine's files.
  static func makeScratch() throws -> URL {
    var template = Array(
      FileManager.default.temporaryDirectory.appendingPathComponent("qualify-engine-XXXXXX")
        .path.utf8CString)
    guard
      let made = template.withUnsafeMutableBufferPointer({ buffer in
        buffer.baseAddress.flatMap { mkdtemp($0) }
      })
    else { throw WebDriverError("not started", "no temporary folder for the engine") }
    return URL(fileURLWithPath: String(cString: made))
  }

  /// An X server of its own on a display it picks (`-displayfd`), no TCP.
  static func startXvfb(_ environment: [String: String]) throws -> (Process, Int) {
    let xvfb = EngineProcess.watched(
      EngineKind.which("Xvfb", environment) ?? "Xvfb",
      ["-displayfd", "1", "-nolisten", "tcp", "-screen", "0", "1024x900x24"])
    let pipe = Pipe()
    xvfb.standardOutput = pipe
    xvfb.standardError = FileHandle.nullDevice
    try xvfb.run()
    var text = ""
    while !text.contains("\n") {
      let chunk = pipe.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    guard let display = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
      EngineProcess.end([xvfb])
      throw WebDriverError("not started", "Xvfb named no display")
    }
    return (xvfb, display)
  }

  /// A loopback port nothing listens on now.
  static func freePort() throws -> UInt16 {
    let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socketFD >= 0 else { throw WebDriverError("not started", "no socket") }
    defer { close(socketFD) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(socketFD, $0, length) == 0 && getsockname(socketFD, $0, &length) == 0
      }
    }
    guard bound else { throw WebDriverError("not started", "no free loopback port") }
    return UInt16(bigEndian: address.sin_port)
  }
}
