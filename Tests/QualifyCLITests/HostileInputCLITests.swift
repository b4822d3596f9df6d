import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

/// What the audit threw at the built binary: payloads in app files, odd output targets, a
/// corrupt store, a busy port, hostile OTA input.
@Suite struct HostileInputCLITests {
  let scratch: URL

  init() throws {
    scratch = try Fixtures.temporaryDirectory("qualify-hostile")
  }

  /// The sample app copied to `scratch/app`, with `edit` applied to files under it.
  func app(_ edits: [String: (String) -> String]) throws -> String {
    let copy = scratch.appendingPathComponent("app")
    try FileManager.default.copyItem(
      at: URL(fileURLWithPath: Fixtures.sampleApp), to: copy)
    for (path, edit) in edits {
      let file = copy.appendingPathComponent(path)
      let text = try String(contentsOf: file, encoding: .utf8)
      let edited = edit(text)
      #expect(edited != text, "the edit of \(path) changed nothing")
      try Data(edited.utf8).write(to: file)
    }
    return copy.path
  }

  static let ios = "src/frontend/ios/App/App/"

  /// U+0600 combines with the `<` after it into one Swift `Character`; an escaper working on
  /// characters let it through, and Chromium ran the handler.
  static func payload(_ label: String) -> String {
    "\u{600}<img src=x onerror=document.title='PWNED-\(label)'//\u{600}>"
  }

  @Test func payloadsInAppFilesAndScenarioTitlesStayTextInChromium() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try app([
      Self.ios + "capacitor.config.json": {
        $0.replacingOccurrences(
          of: "\"cleartext\": false",
          with: "\"cleartext\": false, \"url\": \"http://localhost:8900/\(Self.payload("config"))\""
        )
      },
      Self.ios + "Info.plist": {
        $0.replacingOccurrences(
          of: "$(PRODUCT_DISPLAY_NAME:default=Messages)",
          with: "Mail" + Self.payload("plist").replacingOccurrences(of: "<", with: "&lt;"))
      },
    ])
    let scenarios = scratch.appendingPathComponent("scenarios/guards")
    try FileManager.default.createDirectory(at: scenarios, withIntermediateDirectories: true)
    let source = try String(
      contentsOfFile: CLI.scenarios + "/guards/no-dev-server.scenario", encoding: .utf8)
    let titled = source.replacingOccurrences(
      of: #"scenario "[^"]*""#, with: "scenario \"Hostile \(Self.payload("title"))\"",
      options: .regularExpression)
    try Data(titled.utf8).write(to: scenarios.appendingPathComponent("no-dev-server.scenario"))

    let result = try CLI.run(
      [
        "--channel", "prod", "--app", app, "--scenarios",
        scratch.appendingPathComponent("scenarios").path, "--seed", "5",
      ], in: scratch)
    #expect(result.status == 1, "the dev server is a finding: \(result.stdout)\(result.stderr)")
    let report = scratch.appendingPathComponent("Reports/latest.html")
    let html = try String(contentsOf: report, encoding: .utf8)
    // The payloads did reach the report, as text.
    for label in ["config", "title"] {
      #expect(html.contains("PWNED-\(label)"), "\(label) is not in the report")
    }
    #expect(!html.contains("<img"))
    #expect(html.contains("Content-Security-Policy"))
    let dom = try Chromium.dumpDOM(report)
    #expect(dom.status == 0, "\(dom.stderr.suffix(300))")
    #expect(!dom.stdout.contains("<img"))
    #expect(!dom.stdout.contains("<title>PWNED"))
    #expect(dom.stdout.contains("&lt;img src=x onerror="))
  }

  /// Each was exit 3, "a bug in qualify", or a silent misreading: now each names its file and
  /// line (2), or is a verdict about the app (0 or 1).
  @Test(arguments: [
    (
      "ci/env/prod/backend.env", "OIDC_AUTH_REQUEST_EXTRA_PARAMS={\"acr_values\": \"eidas1\"}",
      "OIDC_AUTH_REQUEST_EXTRA_PARAMS={\"acr_values\": eidas1", Int32(2),
      "backend.env:12:1: error: OIDC_AUTH_REQUEST_EXTRA_PARAMS is not a JSON object"
    ),
    (
      "ci/env/prod/frontend.local", "NEXT_PUBLIC_API_ORIGIN=https://messages.example",
      "NEXT_PUBLIC_API_ORIGIN=https://[::1", 2, "frontend.local:6:1: error: NEXT_PUBLIC_API_ORIGIN"
    ),
    (
      "ci/env/prod/frontend.local", "NEXT_PUBLIC_API_ORIGIN=https://messages.example",
      "NEXT_PUBLIC_API_ORIGIN=ftp://messages.example", 1, "NOT QUALIFIED"
    ),
    (
      "ci/env/prod/frontend.local", "NEXT_PUBLIC_API_ORIGIN=https://messages.example",
      "NEXT_PUBLIC_API_ORIGIN=\"https://messages.example\" # the API", 0, "QUALIFIED"
    ),
    (
      "qualify.json", "\"ci/env/prod/backend.env\"", "\"ci/env/prod/backend.missing.env\"", 2,
      "looked for ci/env/prod/backend.missing.env"
    ),
    (
      "qualify.json", "\"ci/env/prod/backend.env\"", "\"../../../etc/passwd\"", 2,
      "leaves the app directory"
    ),
    // The web bundle a real browser reads: never a hidden folder, never outside the app.
    (
      "qualify.json", "\"webDir\": \"src/frontend/dist\"", "\"webDir\": \".git\"", 2,
      "names a hidden folder"
    ),
    (
      "qualify.json", "\"webDir\": \"src/frontend/dist\"", "\"webDir\": \"../../etc\"", 2,
      "leaves the app directory"
    ),
    (
      "qualify.json", "\"callbackScheme\": \"stmessages\",",
      "\"callbackScheme\": \"stmessages\", \"testUsers\": [\"nobody\"],", 2,
      "testUsers names nobody"
    ),
    (
      "deploy/env/ota-signing.test", "MOBILE_OTA_SIGNING_PRIVATE_KEY_B64=",
      "MOBILE_OTA_SIGNING_PRIVATE_KEY_B64=Zm9vYmFy\nIGNORED_B64=", 2,
      "ota-signing.test:5:1: error: MOBILE_OTA_SIGNING_PRIVATE_KEY_B64 is not a base64 PEM RSA key"
    ),
  ])
  func badAppInputIsNamedNeverABug(
    file: String, find: String, replace: String, status: Int32, message: String
  ) throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try app([file: { $0.replacingOccurrences(of: find, with: replace) }])
    let result = try CLI.run(
      ["--channel", "prod", "--app", app, "--scenarios", CLI.scenarios, "--seed", "9"], in: scratch)
    #expect(result.status == status, "\(result.stdout.suffix(600))\(result.stderr)")
    #expect((result.stdout + result.stderr).contains(message), "\(result.stderr)")
    #expect(!result.stderr.contains("bug in qualify"))
  }

  @Test func controlSequencesFromAppFilesAreShownNotObeyed() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let app = try app([
      Self.ios + "capacitor.config.json": {
        $0.replacingOccurrences(
          of: "\"cleartext\": false",
          with:
            "\"cleartext\": false, \"url\": \"http://localhost:8900/\\u001b]0;owned\\u0007\\u001b[2J\\u001b[8m\\u202e\""
        )
      }
    ])
    let result = try CLI.run(["check-app", "--channel", "prod", "--app", app], in: scratch)
    #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
    let output = result.stdout + result.stderr
    #expect(output.contains("localhost:8900"))
    #expect(!output.contains("\u{1B}"))
    #expect(!output.contains("\u{7}"))
    #expect(!output.unicodeScalars.contains("\u{202E}"))
    #expect(output.contains("␛]0;owned"))
  }

  @Test func junitIsWrittenIntoASymlinkAndAFifoWithoutReplacingThem() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let target = scratch.appendingPathComponent("real.xml")
    try Data("old".utf8).write(to: target)
    let link = scratch.appendingPathComponent("link.xml")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
    let fifo = scratch.appendingPathComponent("pipe.xml")
    #expect(mkfifo(fifo.path, 0o600) == 0)
    // A reader on the FIFO, as `--junit /dev/stdout | tee` would be.
    let received = Locked(Data())
    let reader = Thread {
      if let handle = FileHandle(forReadingAtPath: fifo.path) {
        let data = handle.readDataToEndOfFile()
        received.withLock { $0 = data }
      }
    }
    reader.start()
    let common = [
      "--channel", "prod", "--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios, "--filter",
      "guards/no-dev-server",
    ]
    let viaLink = try CLI.run(common + ["--junit", "link.xml"], in: scratch)
    #expect(viaLink.status == 0, "\(viaLink.stderr)")
    let viaFifo = try CLI.run(common + ["--junit", "pipe.xml"], in: scratch)
    #expect(viaFifo.status == 0, "\(viaFifo.stderr)")
    while reader.isExecuting || !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }

    let linkType = try FileManager.default.attributesOfItem(atPath: link.path)[.type]
    #expect(linkType as? FileAttributeType == .typeSymbolicLink)
    #expect(try String(contentsOf: target, encoding: .utf8).contains("<testsuites"))
    let fifoType = try FileManager.default.attributesOfItem(atPath: fifo.path)[.type]
    #expect(
      fifoType as? FileAttributeType == .typeUnknown
        || fifoType as? FileAttributeType != .typeRegular)
    #expect(String(decoding: received.withLock { $0 }, as: UTF8.self).contains("<testsuites"))
  }

  @Test func reRenderingAnOlderRunLeavesLatestAlone() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let common = [
      "--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios, "--filter", "guards/*",
    ]
    func runID(_ result: ProcessResult) -> String? {
      result.stdout.firstMatch(of: #/run (\d{8}-\d{6}-[0-9a-f]+)/#).map { String($0.1) }
    }
    let older = try #require(runID(try CLI.run(["--channel", "dev"] + common, in: scratch)))
    let newer = try #require(runID(try CLI.run(["--channel", "prod"] + common, in: scratch)))
    let latest = scratch.appendingPathComponent("Reports/latest.html")
    let before = try String(contentsOf: latest, encoding: .utf8)
    #expect(before.contains(newer))
    let report = try CLI.run(["report", older], in: scratch)
    #expect(report.status == 0, "\(report.stderr)")
    #expect(try String(contentsOf: latest, encoding: .utf8) == before)
  }

  @Test func aCorruptStoreIsExit4NamingItAndTheRunDoesNotStart() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let reports = scratch.appendingPathComponent("Reports")
    try FileManager.default.createDirectory(at: reports, withIntermediateDirectories: true)
    try Data(repeating: 0x5A, count: 8192).write(
      to: reports.appendingPathComponent("qualify.sqlite"))
    let result = try CLI.run(
      ["--channel", "prod", "--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios], in: scratch)
    #expect(result.status == 4, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("qualify.sqlite"))
    #expect(!result.stderr.contains("bug in qualify"))
    #expect(!result.stdout.contains("PASS "), "nothing ran")
    let history = try CLI.run(["history"], in: scratch)
    #expect(history.status == 4)
  }

  /// A report folder that cannot be created (a file is in the way): said before the run, as
  /// root too, where permissions would not stop it.
  @Test func anUnwritableReportFolderIsExit4BeforeTheRun() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    try Data("not a folder".utf8).write(to: scratch.appendingPathComponent("blocked"))
    let result = try CLI.run(
      [
        "--channel", "prod", "--app", Fixtures.sampleApp, "--scenarios", CLI.scenarios,
        "--report-dir", "blocked/reports",
      ], in: scratch)
    #expect(result.status == 4, "\(result.stdout)\(result.stderr)")
    #expect(result.stderr.contains("blocked/reports"))
    #expect(!result.stdout.contains("PASS "), "nothing ran")
  }

  @Test func serveOnABusyPortIsExit4AndKeepsTheRunningInstancesCA() throws {
    defer { try? FileManager.default.removeItem(at: scratch) }
    let (process, document) = try CLI.serve(in: scratch)
    defer { if process.isRunning { process.terminate() } }
    let port = try #require(document["https"] as? Int)
    let ca = try String(contentsOf: scratch.appendingPathComponent("ca.pem"), encoding: .utf8)
    let second = try CLI.run(
      [
        "serve", "--channel", "prod", "--app", Fixtures.sampleApp, "--https-port", "\(port)",
        "--ca-out", "ca.pem",
      ], in: scratch)
    #expect(second.status == 4, "\(second.stdout)\(second.stderr)")
    #expect(second.stderr.contains("127.0.0.1:\(port)"))
    #expect(try String(contentsOf: scratch.appendingPathComponent("ca.pem"), encoding: .utf8) == ca)
  }
}
