import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// What a block of the app's code does through the helpers it calls: a rule read only when the
/// helper takes no arguments was a false finding on code that passes the view or the event on.
@Suite struct CodeSearchTests {
  static let kotlin = """
    class Client : WebViewClient() {
        override fun onPageFinished(view: WebView, url: String) {
            super.onPageFinished(view, url)
            askForNotifications(view, url)
        }

        private fun askForNotifications(view: WebView, url: String) {
            if (Build.VERSION.SDK_INT >= 33) {
                ActivityCompat.requestPermissions(activity, arrayOf(Manifest.permission.POST_NOTIFICATIONS), 1)
            }
        }
    }
    """

  static let php = """
    <?php
    final class LogoutListener
    {
        public function __invoke(LogoutEvent $event): void
        {
            $this->forget($event->getRequest(), $event->getToken());
        }

        private function forget(Request $request, ?TokenInterface $token): void
        {
            ($this->deleteDeviceTask)($token?->getUser());
        }
    }
    """

  @Test func aHelperCalledWithArgumentsIsFollowed() throws {
    let code = try RunningLinkReaderTests.search(
      ["Client.kt": Self.kotlin], root: "android", suffixes: [".kt"])
    let asks = try #require(
      code.blockDoes(after: "fun onPageFinished(", ["Manifest.permission.POST_NOTIFICATIONS"]))
    #expect(asks.value)
    #expect(asks.location?.line == 2)
    let logout = try RunningLinkReaderTests.search(
      ["src/LogoutListener.php": Self.php], root: "src", suffixes: [".php"])
    #expect(
      logout.blockDoes(after: "LogoutEvent $", ["deleteDeviceTask)("])?.value == true)
  }

  @Test func aHelperThatDoesNotDoItIsNotEnough() throws {
    let without = Self.kotlin.replacingOccurrences(
      of: "Manifest.permission.POST_NOTIFICATIONS", with: "Manifest.permission.CAMERA")
    let code = try RunningLinkReaderTests.search(
      ["Client.kt": without], root: "android", suffixes: [".kt"])
    #expect(
      code.blockDoes(after: "fun onPageFinished(", ["Manifest.permission.POST_NOTIFICATIONS"])?
        .value == false)
    // The helper is declared but never called from the block.
    let uncalled = Self.kotlin.replacingOccurrences(
      of: "        askForNotifications(view, url)\n", with: "")
    let quiet = try RunningLinkReaderTests.search(
      ["Client.kt": uncalled], root: "android", suffixes: [".kt"])
    #expect(
      quiet.blockDoes(after: "fun onPageFinished(", ["Manifest.permission.POST_NOTIFICATIONS"])?
        .value == false)
  }
}
