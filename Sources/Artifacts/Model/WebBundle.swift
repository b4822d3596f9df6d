import Foundation
import QualifyCore

/// The app's built web bundle (Capacitor's `webDir`) as the shell serves it.
public struct WebBundle: Sendable, Equatable {
  /// The bundle's folder in each directory of the overlay chain, nearest first, each with the
  /// app directory no file of it may leave.
  public var folders: [(folder: String, app: String)]
  /// The bundle's folder as the profile names it, relative to the app.
  public var webDir: String
  /// The thread page (`render.threadPath`), nil when the profile names none.
  public var threadPath: String?

  public init(folders: [(folder: String, app: String)], webDir: String, threadPath: String?) {
    self.folders = folders
    self.webDir = webDir
    self.threadPath = threadPath
  }

  /// Whether the bundle has the file at `relative` (`index.html`) inside its own folder.
  public func has(_ relative: String) -> Bool {
    folders.contains { folder, _ in
      guard let root = ConfinedFile.resolved(folder),
        let real = ConfinedFile.resolved(folder + "/" + relative)
      else { return false }
      return ConfinedFile.isInside(real, root)
    }
  }

  public static func == (a: WebBundle, b: WebBundle) -> Bool {
    a.webDir == b.webDir && a.threadPath == b.threadPath
      && a.folders.map(\.folder) == b.folders.map(\.folder)
  }
}
