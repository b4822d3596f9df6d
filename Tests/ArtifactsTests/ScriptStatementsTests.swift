import Foundation
import Testing

@testable import Artifacts

/// The function splitter every script reader starts from: a function's body is the block
/// after its parameters and its return type, whatever braces those hold.
@Suite struct ScriptStatementsTests {
  static let text = """
    export function currentAccess(): { token: string; expiresAt: number } | null {
      return accessToken && accessExpiresAt !== null ? { token: accessToken, expiresAt: accessExpiresAt } : null;
    }
    const load = async (key: string = "a"): Promise<{ ok: boolean }> => {
      return { ok: true };
    };
    function tuple(): [string, number] { return ["a", 1]; }
    function callback(): (value: string) => { done: boolean } {
      return (value) => ({ done: value === "" });
    }
    function plain(a: { b: number }) {
      return a.b;
    }
    function literal(): "a" | "b" {
      return "a";
    }
    const shaped = (): { ok: boolean } => {
      return { ok: false };
    };
    """

  @Test func aReturnTypeWithBracesIsSkippedBeforeTheBody() {
    let functions = ScriptStatements.functions(in: Self.text)
    #expect(
      functions.map(\.name) == [
        "currentAccess", "load", "tuple", "callback", "plain", "literal", "shaped",
      ])
    #expect(functions.map(\.line) == [0, 3, 6, 7, 10, 13, 16])
    let bodies = Dictionary(functions.map { ($0.name, $0.body) }) { first, _ in first }
    #expect(bodies["currentAccess"]?.hasPrefix("{\n  return accessToken &&") == true)
    #expect(bodies["currentAccess"]?.hasSuffix(": null;\n}") == true)
    #expect(bodies["load"] == "{\n  return { ok: true };\n}")
    #expect(bodies["tuple"] == #"{ return ["a", 1]; }"#)
    #expect(bodies["callback"]?.hasPrefix("{\n  return (value) =>") == true)
    #expect(bodies["plain"] == "{\n  return a.b;\n}")
    #expect(bodies["literal"] == "{\n  return \"a\";\n}")
    // After an object type, `=>` is the arrow function's, not a function type's.
    #expect(bodies["shaped"] == "{\n  return { ok: false };\n}")
  }

  @Test func withoutAReturnTypeTheParametersAreWhereTheTypeEnds() {
    let text = "function f(a = {}) { return a; }"
    let close = text.firstIndex(of: ")")!
    #expect(ScriptStatements.returnTypeEnd(text, after: close) == close)
    let typed = "function f(): Map<string, { a: 1 }>[] | undefined { return undefined; }"
    let typedClose = typed.firstIndex(of: ")")!
    let end = ScriptStatements.returnTypeEnd(typed, after: typedClose)
    #expect(typed[end...].hasPrefix("{ return undefined; }"))
  }
}
