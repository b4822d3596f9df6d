import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// A link that arrives while the app runs, as each container's code handles it (seed 003:
/// navigation within the WebView "sans perte d'état").
@Suite struct RunningLinkReaderTests {
  /// The code of `files` (path → text) under `root`, as the hybrid reader searches it.
  static func search(_ files: [String: String], root: String, suffixes: [String]) throws
    -> CodeSearch
  {
    let directory = try Fixtures.temporaryApp("running-link")
    defer { try? FileManager.default.removeItem(at: directory) }
    for (path, text) in files {
      let file = directory.appendingPathComponent(root + "/" + path)
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: file)
    }
    try Data(#"{"name": "x", "shell": "hybrid-webview"}"#.utf8).write(
      to: directory.appendingPathComponent("qualify.json"))
    let repository = try AppRepository(directory: directory.path)
    return CodeSearch(repository, under: root, suffixes: suffixes, quotes: ["\""])
  }

  static let activity = """
    package com.example

    class MainActivity : AppCompatActivity() {
        override fun onNewIntent(intent: Intent) {
            super.onNewIntent(intent)
            val url = linkOf(intent) ?: return
            (supportFragmentManager.findFragmentById(R.id.container) as? WebFragment)?.open(url)
        }

        private fun linkOf(intent: Intent?): String? =
            intent?.data?.toString()
    }
    """
  static let fragment = """
    class WebFragment : Fragment() {
        fun open(url: String) {
            webView.loadUrl(url)
        }
    }
    """

  func android(_ activity: String, mode: String) throws -> (
    keepsWebView: Sourced<Bool>, routes: Sourced<Bool>?
  ) {
    let code = try Self.search(
      ["MainActivity.kt": activity, "WebFragment.kt": Self.fragment], root: "java",
      suffixes: [".kt"])
    return RunningLinkReader.android(
      code, activity: ".MainActivity",
      launchMode: Sourced(mode, at: FileLocation(file: "AndroidManifest.xml", line: 15, column: 1)))
  }

  @Test func singleTaskWithAnOnNewIntentThatLoadsThroughHelpersKeepsTheWebView() throws {
    let read = try android(Self.activity, mode: "singleTask")
    #expect(read.keepsWebView.value)
    #expect(read.routes?.value == true)
    #expect(read.routes?.location?.line == 4)
  }

  @Test func theDefaultLaunchModeStartsAnotherActivity() throws {
    let read = try android(Self.activity, mode: "standard")
    #expect(!read.keepsWebView.value)
    #expect(read.keepsWebView.location?.file == "AndroidManifest.xml")
    #expect(read.keepsWebView.derivation.first?.contains("launchMode=\"standard\"") == true)
  }

  @Test func anOnNewIntentThatReplacesTheFragmentLosesTheWebView() throws {
    let replaced = Self.activity.replacingOccurrences(
      of:
        "(supportFragmentManager.findFragmentById(R.id.container) as? WebFragment)?.open(url)",
      with:
        "supportFragmentManager.beginTransaction().replace(R.id.container, WebFragment.at(url)).commit()"
    )
    let read = try android(replaced, mode: "singleTask")
    #expect(!read.keepsWebView.value)
    #expect(read.keepsWebView.derivation.first?.contains(".replace(") == true)
  }

  @Test func noOnNewIntentOrOneThatReadsNoDataLeavesThePage() throws {
    let none = Self.activity.replacingOccurrences(of: "onNewIntent", with: "onResumeLink")
    let read = try android(none, mode: "singleTop")
    #expect(read.routes?.value == false)
    let noData = Self.activity.replacingOccurrences(of: "intent?.data?", with: "intent?.action?")
    #expect(try android(noData, mode: "singleTask").routes?.value == false)
  }

  static let delegate = """
    class AppDelegate: UIResponder, UIApplicationDelegate {
        func application(
            _ application: UIApplication,
            continue userActivity: NSUserActivity,
            restorationHandler: @escaping ([UIUserActivityRestoring]?) -> Void
        ) -> Bool {
            if userActivity.activityType == NSUserActivityTypeBrowsingWeb,
               let url = userActivity.webpageURL {
                NotificationCenter.default.post(name: Notification.Name("LinkOpened"), object: url)
            }
            return true
        }
    }
    """
  static let controller = """
    class ViewController: UIViewController {
        override func viewDidLoad() {
            NotificationCenter.default.addObserver(forName: Notification.Name("LinkOpened"), object: nil, queue: .main) { [weak self] note in
                guard let self, let url = note.object as? URL else { return }
                self.webView.load(URLRequest(url: url))
            }
        }
    }
    """

  func ios(_ controller: String, scenes: Bool = false) throws -> (
    keepsWebView: Sourced<Bool>?, unreachable: Sourced<Bool>?
  ) {
    let code = try Self.search(
      ["AppDelegate.swift": Self.delegate, "ViewController.swift": controller], root: "App",
      suffixes: [".swift"])
    return RunningLinkReader.ios(
      code, relay: NotificationRelay(code),
      sceneManifest: scenes ? FileLocation(file: "Info.plist", line: 29, column: 1) : nil)
  }

  @Test func theObserverLoadingInTheRunningWebViewKeepsIt() throws {
    let read = try ios(Self.controller)
    #expect(read.keepsWebView?.value == true)
    #expect(read.unreachable == nil)
  }

  @Test func aNewWebViewForTheLinkIsFoundInTheObserver() throws {
    let fresh = Self.controller.replacingOccurrences(
      of: "self.webView.load(", with: "self.webView = WKWebView(frame: .zero)\nself.webView.load(")
    let read = try ios(fresh)
    #expect(read.keepsWebView?.value == false)
    #expect(read.keepsWebView?.location?.file.hasSuffix("ViewController.swift") == true)
  }

  @Test func scenesDeclaredLeaveTheAppDelegatesHandlerUncalled() throws {
    let read = try ios(Self.controller, scenes: true)
    #expect(read.unreachable?.value == false)
    #expect(read.unreachable?.derivation.first?.contains("Info.plist:29") == true)
  }
}
