import Testing

@testable import Artifacts

/// The evaluator of an app's pure TypeScript functions: what the function answers is what
/// JavaScript would answer, and what it cannot run is unanswered, never guessed.
@Suite struct ScriptFunctionTests {
  /// A host test in the shape of OpenMapX's config module (written here): early returns,
  /// a regular expression's groups destructured into numbers, octet comparisons.
  static let module = """
    const LOOPBACK_NAMES = new Set(["localhost", "ip6-localhost"]);
    /** Comment with a // slash and a "quote". */
    function isNonPublicHost(hostname: string): boolean {
      const host = hostname.toLowerCase().replace(/^\\[|\\]$/g, "");
      if (LOOPBACK_NAMES.has(host) || host.endsWith(".local")) return true;
      if (host === "::1" || host.startsWith("fe80:")) {
        return true;
      }
      const ipv4 = host.match(/^(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})$/);
      if (!ipv4) return false;
      const [a, b] = [Number(ipv4[1]), Number(ipv4[2])];
      if (a === 127 || a === 10) return true;
      if (a === 172 && b >= 16 && b <= 31) return true;
      return a === 192 && b === 168;
    }
    export function label(kind: string, count: number): string {
      const unit: string = count === 1 ? kind : kind + "s";
      return count > 99 ? "many " + unit : String(count) + " " + unit;
    }
    function usesALoop(items: string[]): number {
      let n = 0;
      for (const item of items) n += item.length;
      return n;
    }
    function callsTheUnknown(host: string): boolean {
      return isIP(host) === 4;
    }
    function delegates(host: string): boolean {
      return !isNonPublicHost(host) && host.includes(".");
    }
    """

  func function(_ name: String) throws -> ScriptFunction {
    try ScriptFunction.read(name, in: Self.module).get()
  }

  @Test(arguments: [
    ("localhost", true), ("LOCALHOST", true), ("printer.local", true), ("[::1]", true),
    ("fe80::1", true), ("127.0.0.1", true), ("10.0.2.2", true), ("172.16.0.1", true),
    ("172.31.255.254", true), ("172.32.0.1", false), ("172.15.0.1", false),
    ("192.168.1.20", true), ("192.169.0.1", false), ("openmapx.com", false),
    ("8.8.8.8", false), ("1000.1.1.1", false),
  ])
  func aHostTestAnswersAsJavaScriptWould(_ host: String, _ nonPublic: Bool) throws {
    #expect(try function("isNonPublicHost").call([.string(host)]) == .bool(nonPublic))
  }

  @Test func annotationsTernariesConcatenationAndNumbersAsStrings() throws {
    let label = try function("label")
    #expect(label.call([.string("file"), .number(1)]) == .string("1 file"))
    #expect(label.call([.string("file"), .number(3)]) == .string("3 files"))
    #expect(label.call([.string("file"), .number(100)]) == .string("many files"))
  }

  @Test func aCallToAnotherFunctionOfTheModuleIsFollowed() throws {
    let delegates = try function("delegates")
    #expect(delegates.call([.string("openmapx.com")]) == .bool(true))
    #expect(delegates.call([.string("10.0.2.2")]) == .bool(false))
  }

  @Test func whatItCannotRunIsUnreadOrUnanswered() throws {
    // A loop is not read at all; a call to a function of no known module is unanswered.
    guard case .failure(let error) = ScriptFunction.read("usesALoop", in: Self.module) else {
      Issue.record("a loop was read")
      return
    }
    #expect(error.reason.contains("for"))
    #expect(try function("callsTheUnknown").call([.string("1.2.3.4")]) == nil)
    if case .success = ScriptFunction.read("absent", in: Self.module) {
      Issue.record("a function that is not there was read")
    }
  }

  @Test func javaScriptsOwnCoercionsAndEqualities() {
    let cases: [(String, ScriptFunction.Value)] = [
      (#"return Number("") === 0 && Number(" 12 ") === 12 && isNaN(Number("12px"));"#, .bool(true)),
      (#"return null == undefined && !(null === undefined) && "1" == 1;"#, .bool(true)),
      (#"return "b" > "a" && "10" < "9" && 10 > 9;"#, .bool(true)),
      (#"return [1, 2, 3].includes(2) && "abc".slice(-2) === "bc";"#, .bool(true)),
      (#"return "a,b".split(",").length + parseInt("42px", 10);"#, .number(44)),
      (#"return undefined ?? "fallback";"#, .string("fallback")),
      (#"return typeof x === "undefined" ? "none" : "some";"#, .string("none")),
    ]
    for (body, expected) in cases {
      let text = "function probe(x) {\n  " + body + "\n}"
      let answer = try? ScriptFunction.read("probe", in: text).get().call([])
      #expect(answer == expected, "\(body)")
    }
  }
}
