import Foundation
import QualifyCore

extension BuildReader {
  /// The built web bundle: `render.webDir`, else Capacitor's `dist` under the Capacitor root,
  /// in each directory of the overlay chain.
  func webBundle() -> WebBundle {
    let webDir = profile.render?.webDir ?? XcodeProject.join(profile.capacitorRoot, "dist")
    return WebBundle(
      folders: repository.searchPath.map {
        ($0.appendingPathComponent(webDir).standardizedFileURL.path, $0.path)
      },
      webDir: webDir, threadPath: profile.render?.threadPath)
  }
}
