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
    // An escape it does not decode makes the function unread, never a wrong literal.
    if case .success = ScriptFunction.read("f", in: "function f() { return \"\\u002e\"; }") {
      Issue.record("a \\u escape was read")
    }
    // A literal the text ends inside, even just after a backslash, is no token at all.
    for cut in ["\"a\\", "'a\\", "`a\\", "/a\\", "\"a", "`a${b"] {
      #expect(ScriptLexer.tokens("return " + cut) == nil, "\(cut)")
    }
    #expect(
      ScriptLexer.tokens(#"return "a\"b";"#) == [.word("return"), .string("a\"b"), .punct(";")])
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
      ("return `.${\"a\" + 1}-${[1, 2].length}`;", .string(".a1-2")),
      // An index past either end is undefined, as it is in JavaScript: never the last item.
      (
        #"return [1, 2][-1] === undefined && "ab"[-1] === undefined && "ab"[1] === "b";"#,
        .bool(true)
      ),
      (#"return [1, 2][2] ?? "none";"#, .string("none")),
    ]
    for (body, expected) in cases {
      let text = "function probe(x) {\n  " + body + "\n}"
      let answer = try? ScriptFunction.read("probe", in: text).get().call([])
      #expect(answer == expected, "\(body)")
    }
  }

  /// A navigation policy in the shape OpenMapX writes (here): a `let` assigned in a `try`,
  /// a `catch` that refuses, parsed URLs compared by their parts, a module `Set`.
  static let policy = """
    const RENDERABLE = new Set(["https:", "http:"]);
    export function classify(rawUrl: string, config: { webOrigin: string }): string {
      if (typeof rawUrl !== "string" || rawUrl.length === 0) return "reject";
      let target: URL;
      let product: URL;
      try {
        target = new URL(rawUrl);
        product = new URL(config.webOrigin);
      } catch {
        return "reject";
      }
      if (target.username || target.password) return "reject";
      if (!RENDERABLE.has(target.protocol)) return target.protocol === "mailto:" ? "open-system" : "reject";
      if (target.origin === product.origin) return "allow";
      if (target.hostname === product.hostname) return "reject";
      return "open-system";
    }
    """

  @Test(arguments: [
    ("https://openmapx.com/map?x=1", "allow"), ("HTTPS://OpenMapX.com:443/", "allow"),
    ("https://openmapx.com.evil.example/", "open-system"), ("https://user@openmapx.com/", "reject"),
    ("https://:pw@openmapx.com/", "reject"), ("http://openmapx.com/", "reject"),
    ("https://openmapx.com:8443/", "reject"), ("blob:https://openmapx.com/1", "reject"),
    ("mailto:a@openmapx.com", "open-system"), ("not a url", "reject"), ("", "reject"),
    ("https://evil.example/https://openmapx.com", "open-system"),
  ])
  func aPolicyRunsOnParsedURLs(_ url: String, _ decision: String) throws {
    let classify = try ScriptFunction.read("classify", in: Self.policy).get()
    let config = ScriptFunction.Value.object(["webOrigin": .string("https://openmapx.com")])
    #expect(classify.call([.string(url), config]) == .string(decision))
  }

  /// A build-time config module in the shape OpenMapX writes (here): an origin helper that
  /// throws, the env read with `??` defaults, a frozen object with shorthand and a spread.
  static let config = """
    const OFFICIAL = "https://openmapx.com";
    function origin(value: string, release: boolean): URL {
      const url = new URL(value);
      if (url.pathname !== "/") throw new Error(`an origin, not ${JSON.stringify(value)}`);
      if (release && url.protocol !== "https:") throw new TypeError("release origins use HTTPS");
      return url;
    }
    export function readConfig(env: Env): Readonly<Config> {
      const release = env.RELEASE === "1";
      const web = origin(env.WEB_ORIGIN ?? OFFICIAL, release);
      const team = env.TEAM;
      return Object.freeze({
        release,
        webOrigin: web.origin,
        "appId": release ? "org.x.app" : `org.x.app.dev`,
        ...(team && { team }),
      });
    }
    export function guarded(env: Env): string {
      try {
        return origin(env.WEB_ORIGIN, true).origin;
      } catch {
        return "refused";
      }
    }
    """

  @Test func aConfigFunctionBuildsItsObjectOrThrows() throws {
    let read = try ScriptFunction.read("readConfig", in: Self.config).get()
    func env(_ pairs: [String: String]) -> [ScriptFunction.Value] {
      [.object(pairs.mapValues { .string($0) })]
    }
    #expect(
      read.outcome(env(["RELEASE": "1"]))
        == .returned(
          .object([
            "release": .bool(true), "webOrigin": .string("https://openmapx.com"),
            "appId": .string("org.x.app"),
          ])))
    guard case .returned(.object(let dev)) = read.outcome(env(["TEAM": "T1"])) else {
      Issue.record("no object for a development env")
      return
    }
    #expect(dev["appId"] == .string("org.x.app.dev") && dev["team"] == .string("T1"))
    // A helper's throw is the caller's; a catch around the call takes it.
    #expect(
      read.outcome(env(["RELEASE": "1", "WEB_ORIGIN": "http://openmapx.com"]))
        == .threw("release origins use HTTPS"))
    // A message qualify cannot build (JSON.stringify) is still a throw.
    #expect(read.outcome(env(["WEB_ORIGIN": "https://openmapx.com/app"])) == .threw(nil))
    let guarded = try ScriptFunction.read("guarded", in: Self.config).get()
    #expect(
      guarded.outcome(env(["WEB_ORIGIN": "http://x.example"])) == .returned(.string("refused")))
    #expect(
      guarded.outcome(env(["WEB_ORIGIN": "https://x.example"]))
        == .returned(.string("https://x.example")))
    // What it cannot evaluate stays unanswered, never a throw.
    let unknown = try ScriptFunction.read(
      "f", in: "function f(env) { return Object.keys(env); }"
    ).get()
    #expect(
      unknown.outcome(env([:])) == .unanswered("Object.keys(), which qualify does not evaluate"))
    // A function the module imports is named as the reason.
    let imported = try ScriptFunction.read(
      "f", in: "import { check } from './check';\nfunction f(env) { return check(env.A); }"
    ).get()
    #expect(
      imported.outcome(env([:]))
        == .unanswered("check(), which neither the module nor qualify defines"))
  }

  /// A function's helpers imported from the files beside it are run as written: named and
  /// renamed imports, constants, a chain of imports; a type import binds nothing, and a file
  /// that is not there leaves the call unanswered with the function it needed.
  @Test func importsFromNeighbouringFilesAreRun() throws {
    let files: [String: String] = [
      "config/mobileConfig.ts": """
      import type { BuildEnv } from "./types";
      import { isNonPublicHost as privateHost, DEFAULT_ORIGIN } from "./hosts";
      import { missing } from "./gone";
      export function read(env: BuildEnv) {
        const origin = env.ORIGIN ?? DEFAULT_ORIGIN;
        if (privateHost(new URL(origin).hostname)) throw new Error("not public");
        return origin;
      }
      export function broken(env: BuildEnv) { return missing(env.ORIGIN); }
      """,
      "config/hosts.ts": """
      import { LAN } from "../shared/lan.js";
      export const DEFAULT_ORIGIN = "https://maps.example";
      export function isNonPublicHost(host: string): boolean {
        return host === "localhost" || host.startsWith(LAN[0]) || host.startsWith(LAN[1]);
      }
      """,
      "shared/lan.ts": "export const LAN = [\"10.\", \"192.168.\"];\n",
      "config/types.ts": "export type BuildEnv = Record<string, string | undefined>;\n",
    ]
    func env(_ values: [String: String]) -> [ScriptFunction.Value] {
      [.object(values.mapValues { .string($0) })]
    }
    let read = try ScriptFunction.read(name: "read", at: "config/mobileConfig.ts") {
      files[$0]
    }.get()
    #expect(read.outcome(env([:])) == .returned(.string("https://maps.example")))
    #expect(read.outcome(env(["ORIGIN": "https://10.0.2.2"])) == .threw("not public"))
    #expect(read.outcome(env(["ORIGIN": "https://localhost"])) == .threw("not public"))
    let broken = try ScriptFunction.read(name: "broken", at: "config/mobileConfig.ts") {
      files[$0]
    }.get()
    #expect(
      broken.outcome(env([:]))
        == .unanswered("missing(), which neither the module nor qualify defines"))
    // Without the files, the same text leaves the helper unanswered.
    let alone = try ScriptFunction.read("read", in: files["config/mobileConfig.ts"] ?? "").get()
    #expect(
      alone.outcome(env([:]))
        == .unanswered("DEFAULT_ORIGIN, which neither the module nor qualify defines"))
  }

  @Test func theURLPartsAreTheWHATWGOnes() throws {
    guard case .object(let url)? = ScriptURL.parse("https://u:p@Example.COM:8080/a/b?q#h") else {
      Issue.record("not parsed")
      return
    }
    #expect(url["protocol"] == .string("https:"))
    #expect(url["username"] == .string("u") && url["password"] == .string("p"))
    #expect(url["hostname"] == .string("example.com") && url["port"] == .string("8080"))
    #expect(url["origin"] == .string("https://example.com:8080"))
    #expect(url["pathname"] == .string("/a/b"))
    guard case .object(let blob)? = ScriptURL.parse("blob:https://example.com/x") else {
      Issue.record("blob not parsed")
      return
    }
    #expect(
      blob["protocol"] == .string("blob:") && blob["origin"] == .string("https://example.com"))
    #expect(ScriptURL.parse("https://exa mple.com/") == nil)
    #expect(ScriptURL.parse("https://example.com:99999/") == nil)
    #expect(ScriptURL.parse("no-scheme") == nil)
  }

  /// Arrow functions given to the array methods, parameter defaults (commas and generics in
  /// them included), an object read by a key, and the globals a caller gives, with the keys
  /// read from one of them recorded.
  @Test func arrowsDefaultsAndGivenGlobals() throws {
    let text = """
      function pick(list: string, keep: string, sep = ",", seen: Record<string, number> = {}): string[] {
        return list.split(sep).map((entry) => entry.trim()).filter(Boolean).filter((e: string) => e !== keep);
      }
      function any(values: string[]): boolean {
        return values.some((v) => v.startsWith("x")) && !values.every((v) => v === "x");
      }
      function fromEnv(name: string, env: Record<string, string | undefined> = process.env): string {
        const found = env[name];
        return found != null && found.trim() !== "" ? found : "none";
      }
      function choose(ok: boolean, origin: string, list: string[]): boolean {
        const o = ok ? (origin) : "";
        return list.some((e) => e === o);
      }
      """
    let pick = try ScriptFunction.read("pick", in: text).get()
    #expect(
      pick.call([.string(" a, b ,, c"), .string("b")]) == .array([.string("a"), .string("c")]))
    let any = try ScriptFunction.read("any", in: text).get()
    #expect(any.call([.array([.string("x"), .string("y")])]) == .bool(true))
    #expect(any.call([.array([.string("x")])]) == .bool(false))
    let fromEnv = try ScriptFunction.read("fromEnv", in: text).get()
    let env = ScriptFunction.Value.object(["A": .string("1"), "B": .string("  ")])
    let globals: [String: ScriptFunction.Value] = ["process": .object(["env": env])]
    let read = fromEnv.outcome([.string("A")], globals: globals, recording: env)
    #expect(read.outcome == .returned(.string("1")))
    #expect(read.read == ["A"])
    #expect(
      fromEnv.outcome([.string("B")], globals: globals, recording: env).outcome
        == .returned(.string("none")))
    // Without the global, the default's `process` is unanswered, not undefined.
    #expect(fromEnv.call([.string("A")]) == nil)
    // A conditional's parenthesised branch is no arrow's parameter list.
    let choose = try ScriptFunction.read("choose", in: text).get()
    #expect(choose.call([.bool(true), .string("o"), .array([.string("o")])]) == .bool(true))
    #expect(choose.call([.bool(false), .string("o"), .array([.string("o")])]) == .bool(false))
    // A default qualify cannot parse makes the function unread, never silently undefined.
    if case .success = ScriptFunction.read("f", in: "function f(a = function () {}) { return a; }")
    {
      Issue.record("a default that is not read was dropped")
    }
  }
}
