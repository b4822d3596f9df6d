import QualifyCore

/// What a multi-instance shell's build says (seed 004): the deep-link scheme it must receive,
/// where Android delivers it, the Swift files the iOS target really compiles, and whether the
/// Capacitor config bakes an instance in. The instances themselves are chosen at run time.
public struct InstanceShellSettings: Sendable {
  /// The scheme deep links arrive on (`sovereign://<host>/<path>`), from `deepLinkScheme` in
  /// qualify.json.
  public var deepLinkScheme: Sourced<String>?
  /// Android: the launch mode of the activity whose intent filter receives the scheme
  /// (`singleTask` routes a warm link through `onNewIntent`); nil when no activity does.
  public var deepLinkLaunchMode: Sourced<String>?
  /// Android: the activity started from the launcher (`MAIN` + `LAUNCHER`), nil when none is.
  public var launcherActivity: Sourced<String>?
  /// iOS: Swift files in the app's folder that the app target's Sources phase does not
  /// compile — in a classic-format project they are silently left out of the build.
  public var uncompiledSwiftFiles: [Sourced<String>] = []
  /// iOS: the Swift files the app target compiles (for `check-app --explain`).
  public var compiledSwiftFiles: [String] = []
  /// The project file the Sources phase was read from.
  public var projectFile: String?
  /// `server.url` in the Capacitor config: an instance (or any origin) baked into the build.
  public var serverURL: Sourced<String>?
  /// `server.allowNavigation`: origins Capacitor's own policy would keep in the WebView.
  public var allowNavigation: [Sourced<String>] = []
  /// `server.cleartext` in the Capacitor config.
  public var serverCleartext: Sourced<Bool>?
  /// The Capacitor config the settings were read from.
  public var configFile: String?
  /// Native source files that handle cookies, auth headers or sign-in endpoints themselves,
  /// with what was found: the shell must leave auth to the instance (seed 004).
  public var nativeAuthCode: [Sourced<String>] = []

  public init() {}
}
