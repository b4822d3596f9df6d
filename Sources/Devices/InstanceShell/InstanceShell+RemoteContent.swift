import Artifacts
import Foundation
import HTTP

/// What a loaded instance's page reaches of the native side (sovereign-mobile's hard rule:
/// remote instance content never gets uncontrolled native access). On iOS Capacitor's scripts
/// and its `bridge` handler reach every page the WebView shows unless the shell removes them
/// before remote content loads; on Android Capacitor answers only the app's own origins (the
/// local page and `server.allowNavigation`). The device bridge the shell gives the instance
/// instead answers its main frame, and a frame of another origin it embeds only when the code
/// does not refuse one.
extension InstanceShell {
  /// Native code a page can call.
  public enum NativeSurface: String, Sendable, CaseIterable {
    /// Capacitor's bridge (`window.Capacitor`, its `bridge` message handler): every plugin.
    case capacitor
    /// The shell's own device bridge (`sovereignBridge`).
    case deviceBridge = "device-bridge"
  }

  /// The loaded instance's page — its main frame, or a frame of another origin it embeds —
  /// calls `surface`: whether native code answers, and why.
  public func instancePageCalls(_ surface: NativeSurface, fromOtherOrigin: Bool) -> (
    answered: Bool, why: String
  ) {
    guard let page = currentRemote else { return (false, "no instance page is shown") }
    let frame = fromOtherOrigin ? "a frame of another origin in \(page)" : page
    let code = build.instanceShell?.code
    switch surface {
    case .capacitor:
      let answered: Bool
      let why: String
      switch build.platform {
      case .ios:
        let isolation = code?.iosIsolatesRemoteContent
        answered = behaviours.remoteKeepsCapacitorBridge || isolation?.value != true
        why =
          answered
          ? "Capacitor's scripts and its bridge handler are still installed for \(frame)"
            + (isolation.map { $0.value ? "" : " (\($0.origin): \($0.derivation.joined()))" }
              ?? " (no decidePolicyFor removes them)")
          : "Capacitor's scripts and its bridge handler were removed before the instance loaded (\(isolation?.origin ?? "?"))"
      case .android:
        let host = Origin(url: page)?.host ?? ""
        let allowed =
          build.instanceShell?.allowNavigation.contains {
            $0.value == host || $0.value == "*"
              || ($0.value.hasPrefix("*.") && host.hasSuffix($0.value.dropFirst()))
          } ?? false
        answered = behaviours.remoteKeepsCapacitorBridge || allowed
        why =
          answered
          ? "Capacitor's bridge answers \(frame)"
            + (allowed ? " (server.allowNavigation lists \(host))" : "")
          : "Capacitor's bridge answers only the app's own origins (the local page, server.allowNavigation)"
      }
      note("\(frame) calls Capacitor: \(answered ? "answered" : "not reachable") — \(why)")
      return (answered, why)
    case .deviceBridge:
      guard
        let scope = build.platform == .ios ? code?.iosDeviceBridge : code?.androidDeviceBridge
      else { return (false, "the app gives instances no device bridge") }
      let answered =
        !fromOtherOrigin || behaviours.deviceBridgeAnyFrame
        || scope.value.reachableFromOtherOrigins
      let why =
        !fromOtherOrigin
        ? "\(scope.value.name) answers the instance's own page (\(scope.origin))"
        : answered
          ? "\(scope.value.name) answers \(frame), refusing neither another origin nor a sub-frame (\(scope.origin))"
          : "\(scope.value.name) refuses \(frame) (\(scope.value.originScoped ? "its allowed origins" : "isMainFrame"), \(scope.origin))"
      note("\(frame) calls \(scope.value.name): \(answered ? "answered" : "refused")")
      return (answered, why)
    }
  }
}
