import QualifyCore

/// One shell kind's reader: what it reads of the app's repository for a channel. The
/// registry below is the only place that maps a kind to its reader; a new kind adds its
/// `BuildReader+<Kind>.swift` and one line here.
protocol ShellBuildReader: SendableMetatype {
  static var kind: ShellKind { get }
  static func read(_ reader: inout BuildReader) throws -> [Platform: AppBuild]
}

enum ShellBuildReaders {
  static let all: [any ShellBuildReader.Type] = [
    SingleOriginShellReader.self, InstanceShellReader.self, SessionShellReader.self,
    HybridShellReader.self, BridgeShellReader.self,
  ]

  static func type(of kind: ShellKind) -> any ShellBuildReader.Type {
    guard let type = all.first(where: { $0.kind == kind }) else {
      preconditionFailure("shell kind \(kind.id) has no reader in ShellBuildReaders.all")
    }
    return type
  }
}

enum SingleOriginShellReader: ShellBuildReader {
  static let kind = ShellKind.singleOrigin
  static func read(_ reader: inout BuildReader) throws -> [Platform: AppBuild] {
    try reader.readSingleOrigin()
  }
}

enum InstanceShellReader: ShellBuildReader {
  static let kind = ShellKind.multiInstance
  static func read(_ reader: inout BuildReader) -> [Platform: AppBuild] {
    reader.readMultiInstance()
  }
}

enum SessionShellReader: ShellBuildReader {
  static let kind = ShellKind.sessionContract
  static func read(_ reader: inout BuildReader) -> [Platform: AppBuild] {
    reader.readSessionContract()
  }
}

enum HybridShellReader: ShellBuildReader {
  static let kind = ShellKind.hybridWebView
  static func read(_ reader: inout BuildReader) -> [Platform: AppBuild] { reader.readHybrid() }
}

enum BridgeShellReader: ShellBuildReader {
  static let kind = ShellKind.reactNativeBridge
  static func read(_ reader: inout BuildReader) -> [Platform: AppBuild] { reader.readBridge() }
}
