import Foundation
import QualifyCore
import Testing

@Suite struct DisplayPathTests {
  @Test(arguments: [
    ("/ci/work/app/ci/env/prod.env", "/ci/work", "app/ci/env/prod.env"),
    ("/ci/work", "/ci/work", "."),
    ("/ci/apps/messages", "/ci/work/repo", "../../apps/messages"),
    ("/ci/work/./app/../app/x", "/ci/work/", "app/x"),
    ("relative/as/given", "/ci/work", "relative/as/given"),
  ])
  func aPathIsShownFromTheWorkingDirectory(path: String, base: String, shown: String) {
    #expect(DisplayPath.of(path, from: base) == shown)
  }

  /// A path that shares only `/` with the working directory would be the machine path behind
  /// `..`: it is not dressed up as relative, and `relativeIfNear` says there is no near form.
  @Test func aPathThatSharesOnlyTheRootHasNoRelativeForm() {
    #expect(
      DisplayPath.of("/opt/qualify/bin/qualify", from: "/home/ci/repo")
        == "/opt/qualify/bin/qualify")
    #expect(DisplayPath.relativeIfNear("/opt/qualify/bin/qualify", from: "/home/ci/repo") == nil)
    #expect(
      DisplayPath.relativeIfNear("/home/ci/tools/qualify", from: "/home/ci/repo")
        == "../tools/qualify")
  }
}
