import Foundation
import QualifyCore
import Testing

@testable import Artifacts

/// `nativeLogout()` read from `auth.ts`: which steps run after a request rejects (issue 23,
/// the lifecycle edge of a logout without a network).
@Suite struct NativeLogoutReaderTests {
  typealias Step = NativeLogoutFlow.Step

  /// A logout whose POST statement and flush are `post` and `flush`, wrapped as `body` says.
  func flow(_ body: String) throws -> NativeLogoutFlow {
    let text = """
      import { CapacitorCookies } from "@capacitor/core";

      export const nativeLogout = async (): Promise<void> => {
        try {
          await openAuthSession(getRequestUrl("/api/v1.0/logout/", { mobile_scheme: scheme }), scheme);
        } catch (error) {
          console.warn("IdP logout did not complete:", error);
        }
      \(body)
        window.location.reload();
      };
      """
    return NativeLogoutReader.read(text, file: "auth.ts")
  }

  let post = """
    await fetch(getRequestUrl("/api/v1.0/mobile/auth/logout/"), {
        method: "POST",
        headers: csrfToken ? { "X-CSRFToken": csrfToken } : undefined,
      });
    """

  @Test func aFlushInsideTheTryOfTheAwaitedPostIsSkippedWhenItRejects() throws {
    let read = try flow(
      """
        try {
          \(post)
          await CapacitorCookies.clearAllCookies();
        } catch (error) {
          console.warn(error);
        }
        setNativeCsrfToken(null);
      """)
    #expect(read.order == [.browserLogout, .safetyNet, .clearCookies, .clearCSRFToken])
    #expect(read.runs(.clearCookies, rejected: []))
    #expect(!read.runs(.clearCookies, rejected: [.safetyNet]))
    #expect(read.runs(.clearCSRFToken, rejected: [.safetyNet, .browserLogout]))
    #expect(read.runs(.safetyNet, rejected: [.browserLogout]))
    let hits = BuildGuards.logoutHits(read)
    #expect(hits.count == 1)
    #expect(hits.first?.value == Step.clearCookies.rawValue)
    #expect(hits.first?.location?.line == 14)
  }

  @Test func aFinallyOrTheCodeAfterTheCatchRunsEitherWay() throws {
    for wrapped in [
      "  try {\n    \(post)\n  } catch (error) {\n  } finally {\n    await CapacitorCookies.clearAllCookies();\n  }\n  setNativeCsrfToken(null);",
      "  try {\n    \(post)\n  } catch {\n  }\n  await CapacitorCookies.clearAllCookies();\n  setNativeCsrfToken(null);",
      "  try {\n    \(post)\n  } finally {\n    await CapacitorCookies.clearAllCookies();\n    setNativeCsrfToken(null);\n  }",
    ] {
      let read = try flow(wrapped)
      #expect(read.runs(.clearCookies, rejected: [.safetyNet]), "\(wrapped)")
      #expect(read.runs(.clearCookies, rejected: []), "\(wrapped)")
      if wrapped.hasSuffix("}") {
        // try/finally without a catch: the rejection climbs out after the finally.
        #expect(read.runs(.clearCSRFToken, rejected: [.safetyNet]))
      } else {
        #expect(BuildGuards.logoutHits(read).isEmpty, "\(wrapped)")
      }
    }
  }

  @Test func aRequestNotAwaitedOrWithACatchChainedNeverSkipsWhatFollows() throws {
    for statement in [
      "void fetch(getRequestUrl(\"/api/v1.0/mobile/auth/logout/\"), { method: \"POST\" });",
      "await fetch(getRequestUrl(\"/api/v1.0/mobile/auth/logout/\"), { method: \"POST\" }).catch(() => undefined);",
    ] {
      let read = try flow(
        "  \(statement)\n  await CapacitorCookies.clearAllCookies();\n  setNativeCsrfToken(null);")
      #expect(read.runs(.clearCookies, rejected: [.safetyNet]), "\(statement)")
      #expect(BuildGuards.logoutHits(read).isEmpty, "\(statement)")
    }
  }

  @Test func anUncaughtAwaitedPostSkipsEverythingAfterIt() throws {
    let read = try flow(
      "  \(post)\n  await CapacitorCookies.clearAllCookies();\n  setNativeCsrfToken(null);")
    #expect(!read.runs(.clearCookies, rejected: [.safetyNet]))
    #expect(!read.runs(.clearCSRFToken, rejected: [.safetyNet]))
    #expect(BuildGuards.logoutHits(read).count == 2)
  }

  @Test func aFlushOnlyInTheCatchLeavesTheCookiesWhenThePostSucceeds() throws {
    let read = try flow(
      "  try {\n    \(post)\n  } catch (error) {\n    await CapacitorCookies.clearAllCookies();\n  }\n  setNativeCsrfToken(null);"
    )
    #expect(!read.runs(.clearCookies, rejected: []))
    #expect(read.runs(.clearCookies, rejected: [.safetyNet]))
    #expect(BuildGuards.logoutHits(read).contains { $0.message.contains("only when") })
  }

  @Test func aCatchThatThrowsAgainPassesTheRejectionOn() throws {
    let read = try flow(
      "  try {\n    \(post)\n  } catch (error) {\n    throw error;\n  }\n  await CapacitorCookies.clearAllCookies();\n  setNativeCsrfToken(null);"
    )
    #expect(!read.runs(.clearCookies, rejected: [.safetyNet]))
  }

  @Test func clearingBeforeThePostLeavesThePostWithoutItsSession() throws {
    let read = try flow(
      "  await CapacitorCookies.clearAllCookies();\n  setNativeCsrfToken(null);\n  try {\n    \(post)\n  } catch {}"
    )
    #expect(read.order == [.browserLogout, .clearCookies, .clearCSRFToken, .safetyNet])
    let messages = BuildGuards.logoutHits(read).map(\.message)
    #expect(messages.contains { $0.contains("no session cookie") })
    #expect(messages.contains { $0.contains("no X-CSRFToken") })
  }

  @Test func aFlushUnderAConditionIsUnverifiedAndAMissingStepIsAFinding() throws {
    let read = try flow(
      "  const response = \(post)\n  if (response.ok) {\n    await CapacitorCookies.clearAllCookies();\n  }"
    )
    let hits = BuildGuards.logoutHits(read)
    #expect(hits.contains { $0.unverified && $0.value == Step.clearCookies.rawValue })
    // A step not seen may be taken by a helper qualify does not follow: unverified too.
    #expect(hits.contains { $0.unverified && $0.value == Step.clearCSRFToken.rawValue })
    #expect(!read.isRead)
    #expect(read.simulated.runs(.clearCookies, rejected: [.safetyNet]))
  }

  @Test func commentsAndOtherFunctionsDoNotCount() throws {
    let text = """
      // export const nativeLogout = async () => { await CapacitorCookies.clearAllCookies(); };
      export const nativeLogin = async () => { await CapacitorCookies.clearAllCookies(); };
      export async function nativeLogout(): Promise<void> {
        /* await CapacitorCookies.clearAllCookies(); */
        await fetch("/api/v1.0/mobile/auth/logout/", { method: "POST" });
      }
      """
    let read = NativeLogoutReader.read(text, file: "auth.ts")
    #expect(read.declaration.line == 3)
    #expect(read.steps[.clearCookies] == nil)
    #expect(read.steps[.safetyNet] != nil)
    #expect(
      NativeLogoutReader.read("export const nativeLogin = () => {};", file: "auth.ts").problem
        != nil)
  }

  /// The real repository's shape written without semicolons: the flush is still in the try
  /// that awaits the POST.
  @Test func withoutSemicolonsTheFlushInTheTryIsStillSkipped() throws {
    let read = try flow(
      """
        try {
          const csrfToken = getNativeCsrfToken()
          await fetch(getRequestUrl("/api/v1.0/mobile/auth/logout/"), {
            method: "POST",
          })
          await CapacitorCookies.clearAllCookies()
        } catch (error) {
          console.warn(error)
        }
        setNativeCsrfToken(null)
      """)
    #expect(read.isRead)
    #expect(!read.runs(.clearCookies, rejected: [.safetyNet]))
    #expect(read.runs(.clearCSRFToken, rejected: [.safetyNet]))
  }

  @Test func aRequestWithAnObjectArgumentOrItsUrlInALocalIsStillAwaited() throws {
    for request in [
      "await CapacitorHttp.post({ url: getRequestUrl(\"/api/v1.0/mobile/auth/logout/\") });",
      "const url = getRequestUrl(\"/api/v1.0/mobile/auth/logout/\");\n    await fetch(url, { method: \"POST\" });",
    ] {
      let read = try flow(
        "  try {\n    \(request)\n    await CapacitorCookies.clearAllCookies();\n  } catch {}\n  setNativeCsrfToken(null);"
      )
      #expect(!read.runs(.clearCookies, rejected: [.safetyNet]), "\(request)")
    }
  }

  @Test func aModuleConstantNamesTheUrl() throws {
    let text = """
      const SAFETY_NET = "/api/v1.0/mobile/auth/logout/";
      export const nativeLogout = async (): Promise<void> => {
        try {
          await openAuthSession(getRequestUrl("/api/v1.0/logout/"), scheme);
        } catch {}
        try {
          await fetch(getRequestUrl(SAFETY_NET), { method: "POST" });
        } finally {
          await CapacitorCookies.clearAllCookies();
        }
        setNativeCsrfToken(null);
      };
      """
    let read = NativeLogoutReader.read(text, file: "auth.ts")
    #expect(read.steps[.safetyNet]?.location.line == 7)
    #expect(read.runs(.clearCookies, rejected: [.safetyNet]))
  }

  @Test func aStepWrittenInTheTryAndInItsCatchRunsEitherWay() throws {
    let read = try flow(
      "  try {\n    \(post)\n    await CapacitorCookies.clearAllCookies();\n  } catch {\n    await CapacitorCookies.clearAllCookies();\n  }\n  setNativeCsrfToken(null);"
    )
    #expect(read.runs(.clearCookies, rejected: [.safetyNet]))
    #expect(read.runs(.clearCookies, rejected: []))
    #expect(BuildGuards.logoutHits(read).isEmpty)
  }

  @Test func allSettledNeverRejectsAndCallbacksOrPromiseAllAreUnverified() throws {
    let settled = try flow(
      "  await Promise.allSettled([fetch(getRequestUrl(\"/api/v1.0/mobile/auth/logout/\"))]);\n  await CapacitorCookies.clearAllCookies();\n  setNativeCsrfToken(null);"
    )
    #expect(settled.isRead)
    #expect(settled.runs(.clearCookies, rejected: [.safetyNet]))
    // A flush in a `.finally` callback cannot be placed; the CSRF token's removal after the
    // awaited chain is still skipped by a rejection, which `.finally` passes on.
    let chained = try flow(
      "  await fetch(getRequestUrl(\"/api/v1.0/mobile/auth/logout/\")).finally(() => CapacitorCookies.clearAllCookies());\n  setNativeCsrfToken(null);"
    )
    let chainedHits = BuildGuards.logoutHits(chained)
    #expect(chainedHits.contains { $0.unverified && $0.value == Step.clearCookies.rawValue })
    #expect(chainedHits.contains { !$0.unverified && $0.value == Step.clearCSRFToken.rawValue })
    let all = try flow(
      "  await Promise.all([fetch(getRequestUrl(\"/api/v1.0/mobile/auth/logout/\")).catch(() => {})]);\n  await CapacitorCookies.clearAllCookies();\n  setNativeCsrfToken(null);"
    )
    #expect(!all.isRead)
    #expect(
      BuildGuards.logoutHits(all).contains { $0.unverified && $0.value == Step.safetyNet.rawValue })
    #expect(!BuildGuards.logoutHits(all).contains { !$0.unverified })
  }

  @Test func aCatchThatReturnsSkipsWhatFollowsAndAConditionalThrowIsUnverified() throws {
    let returns = try flow(
      "  try {\n    \(post)\n  } catch (error) {\n    console.warn(error);\n    return;\n  }\n  await CapacitorCookies.clearAllCookies();\n  setNativeCsrfToken(null);"
    )
    #expect(!returns.runs(.clearCookies, rejected: [.safetyNet]))
    let conditional = try flow(
      "  try {\n    \(post)\n  } catch (error) {\n    if (!(error instanceof TypeError)) throw error;\n  }\n  await CapacitorCookies.clearAllCookies();\n  setNativeCsrfToken(null);"
    )
    #expect(!conditional.isRead)
  }

  @Test func bodiesBehindReturnTypesAndExpressionBodies() throws {
    let typed = NativeLogoutReader.read(
      """
      export async function nativeLogout(): Promise<{ ok: boolean }> {
        await CapacitorCookies.clearAllCookies();
        return { ok: true };
      }
      """, file: "auth.ts")
    #expect(typed.problem == nil)
    #expect(typed.steps[.clearCookies]?.location.line == 2)
    let arrow = NativeLogoutReader.read(
      "export const nativeLogout = async (): Promise<{ ok: boolean }> => { await CapacitorCookies.clearAllCookies(); };",
      file: "auth.ts")
    #expect(arrow.steps[.clearCookies] != nil)
    let expression = NativeLogoutReader.read(
      "export const nativeLogout = () => runLogout();\nconst other = () => { CapacitorCookies.clearAllCookies(); };",
      file: "auth.ts")
    #expect(expression.problem != nil)
    #expect(BuildGuards.logoutHits(expression).allSatisfy { $0.unverified })
  }
}
