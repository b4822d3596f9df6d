import Foundation
import QualifyTestSupport
import Testing

@testable import Artifacts

/// The query parameter the web code's login reads the callback's token from (seed 000).
@Suite struct CallbackParameterReaderTests {
  static let path = "src/frontend/src/features/native/auth.ts"

  func parameter(_ files: [String: String] = [:]) throws -> Sourced<String>? {
    let directory = try Fixtures.overlayApp(
      "qualify-callback-parameter", base: Fixtures.sampleApp, files: files)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try AppRepository(directory: directory.path).builds(for: .prod)[.ios]?
      .authSession.callbackParameter
  }

  @Test func theSamplesLoginReadsTheTokenParameter() throws {
    let read = try #require(try parameter())
    #expect(read.value == "token")
    #expect(read.location?.file.hasSuffix(Self.path) == true)
    #expect(read.location?.line == 34)
  }

  @Test func anotherNameIsReadAsWrittenAndACommentedOneIsNot() throws {
    let text = try String(contentsOfFile: Fixtures.sampleApp + "/" + Self.path, encoding: .utf8)
    let call = #"searchParams.get("token")"#
    #expect(text.contains(call))
    let renamed = text.replacingOccurrences(of: call, with: "searchParams.get('code')")
    #expect(try parameter([Self.path: renamed])?.value == "code")
    let commented = text.replacingOccurrences(
      of: "    const token = new URL(callbackUrl)",
      with:
        "    // old: new URL(callbackUrl).searchParams.get(\"code\");\n    const token = new URL(callbackUrl)"
    )
    #expect(commented != text)
    #expect(try parameter([Self.path: commented])?.value == "token")
  }
}
