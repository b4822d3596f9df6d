import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// Issue 28: the protocol module's Zod schema read as written, and held to messages as Zod
/// would hold them.
@Suite struct SchemaReaderTests {
  /// A protocol module in the idioms of a real one: named limits, a bounded-id helper, an
  /// arrow `envelope` helper with generics, a tagged union of start packages, a passthrough
  /// route, defaults and optionals.
  static let module = """
    import { z } from "zod";

    export const LEG_LIMIT = 4;
    const ID_LENGTH = 2 * 8;
    const boundedId = z.string().min(1).max(ID_LENGTH);
    const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
    const point = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]);

    const route = z
      .object({
        geometry: z.array(point).min(2),
        legs: z.array(z.unknown()).max(LEG_LIMIT).optional(),
      })
      // Engines add their own fields.
      .passthrough();

    const walk = z.object({ kind: z.literal("walk"), route, pace: z.enum(["slow", "fast"]) }).strict();
    const ride = z.object({ kind: z.literal("ride"), line: boundedId.nullable() }).strict();
    const startPackage = z.discriminatedUnion("kind", [walk, ride]);

    const envelope = <T extends string, P extends z.ZodTypeAny>(
      type: T,
      payload: P,
    ) =>
      z
        .object({
          type: z.literal(type),
          messageId: boundedId,
          revision: count.optional(),
          payload,
        })
        .strict();

    export const webToNativeSchema = z.discriminatedUnion("type", [
      envelope("hello", z.object({ build: boundedId, voice: z.boolean().default(false) }).strict()),
      envelope("prepare", z.object({ startPackage }).strict()),
      envelope("ack", z.object({ ids: z.array(boundedId).max(3) }).strict()),
    ]);
    """

  func schema(_ text: String = module) throws -> SchemaShape {
    try SchemaReader(text).schema("webToNativeSchema").get()
  }

  func json(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
  }

  @Test func aWellFormedMessageOfEachTypeIsAccepted() throws {
    let schema = try schema()
    for message in [
      #"{"type":"hello","messageId":"m1","payload":{"build":"b"}}"#,
      #"{"type":"hello","messageId":"m1","revision":3,"payload":{"build":"b","voice":true}}"#,
      #"{"type":"ack","messageId":"m2","payload":{"ids":["a","b","c"]}}"#,
      #"{"type":"prepare","messageId":"m3","payload":{"startPackage":{"kind":"walk","pace":"slow","route":{"geometry":[[1,2],[3,4]],"engine":{"x":1}}}}}"#,
      #"{"type":"prepare","messageId":"m4","payload":{"startPackage":{"kind":"ride","line":null}}}"#,
    ] {
      #expect(schema.reason(try json(message), at: "") == nil, "\(message)")
    }
  }

  @Test func eachRefusalIsZodsAndNamesWhere() throws {
    let schema = try schema()
    let cases: [(String, String)] = [
      (
        #"{"type":"hello","messageId":"m1","extra":1,"payload":{"build":"b"}}"#,
        "extra: not in the schema"
      ),
      (
        #"{"type":"hello","messageId":"m1","payload":{"build":"b","x":1}}"#,
        "payload.x: not in the schema"
      ),
      (#"{"type":"hello","messageId":"m1","payload":{}}"#, "payload.build: missing"),
      (
        #"{"type":"hello","messageId":"","payload":{"build":"b"}}"#,
        "messageId: length out of bounds"
      ),
      (
        #"{"type":"hello","messageId":"12345678901234567","payload":{"build":"b"}}"#,
        "messageId: length out of bounds"
      ),
      (
        #"{"type":"hello","messageId":"m","revision":1.5,"payload":{"build":"b"}}"#,
        "revision: not an integer"
      ),
      (
        #"{"type":"hello","messageId":"m","revision":-1,"payload":{"build":"b"}}"#,
        "revision: out of bounds"
      ),
      (
        #"{"type":"hello","messageId":"m","payload":{"build":"b","voice":1}}"#,
        "payload.voice: not a boolean"
      ),
      (
        #"{"type":"bye","messageId":"m","payload":{}}"#, #"type: "bye" is not one the schema lists"#
      ),
      (#"{"messageId":"m","payload":{}}"#, #"no "type" field"#),
      (
        #"{"type":"ack","messageId":"m","payload":{"ids":["a","b","c","d"]}}"#,
        "payload.ids: 4 items"
      ),
      (
        #"{"type":"prepare","messageId":"m","payload":{"startPackage":{"kind":"walk","pace":"brisk","route":{"geometry":[[1,2],[3,4]]}}}}"#,
        "payload.startPackage.pace: not one of slow, fast"
      ),
      (
        #"{"type":"prepare","messageId":"m","payload":{"startPackage":{"kind":"walk","pace":"slow","route":{"geometry":[[1,2]]}}}}"#,
        "payload.startPackage.route.geometry: 1 items"
      ),
      (
        #"{"type":"prepare","messageId":"m","payload":{"startPackage":{"kind":"walk","pace":"slow","route":{"geometry":[[1,2],[300,4]]}}}}"#,
        "payload.startPackage.route.geometry[1][0]: out of bounds"
      ),
      (
        #"{"type":"prepare","messageId":"m","payload":{"startPackage":{"kind":"walk","pace":"slow","route":{"geometry":[[1,2],[3,4]],"legs":[1,2,3,4,5]}}}}"#,
        "payload.startPackage.route.legs: 5 items"
      ),
      (
        #"{"type":"prepare","messageId":"m","payload":{"startPackage":{"kind":"bus"}}}"#,
        #"payload.startPackage.kind: "bus" is not one the schema lists"#
      ),
      (
        #"{"type":"prepare","messageId":"m","payload":{"startPackage":{"kind":"ride","line":null,"stop":1}}}"#,
        "payload.startPackage.stop: not in the schema"
      ),
    ]
    for (message, why) in cases {
      #expect(schema.reason(try json(message), at: "") == why, "\(message)")
    }
  }

  @Test func theLeastExampleOfEachTypeIsAcceptedAndTheScenariosFieldsWin() throws {
    let schema = try schema()
    guard case .tagged(_, let options) = schema else {
      Issue.record("not a tagged union: \(schema)")
      return
    }
    #expect(options.keys.sorted() == ["ack", "hello", "prepare"])
    for (type, option) in options {
      let example = option.example()
      #expect(schema.reason(example, at: "") == nil, "\(type): \(example)")
    }
    let payload = schema.field("payload", whereTagIs: "prepare")?.example() as? [String: Any]
    let package = payload?["startPackage"] as? [String: Any]
    #expect(package?["kind"] as? String == "ride")
    #expect(schema.field("payload", whereTagIs: "bye") == nil)
  }

  @Test func aLooseEnvelopeOrPayloadLetsAnUnknownFieldThrough() throws {
    let loose = Self.module.replacingOccurrences(
      of: "      payload,\n    })\n    .strict();", with: "      payload,\n    });")
    #expect(loose != Self.module)
    let message = try json(
      #"{"type":"ack","messageId":"m","invokeNative":"x","payload":{"ids":[]}}"#)
    #expect(try schema().accepts(message) == false)
    #expect(try schema(loose).accepts(message))
  }

  @Test func methodsThatChangeWhatIsAcceptedAreReadOrRefusedNeverIgnored() throws {
    func accepts(_ schema: String, _ value: String) throws -> Bool {
      let shape = try SchemaReader("export const webToNativeSchema = \(schema);")
        .schema("webToNativeSchema").get()
      return shape.accepts(try json(value))
    }
    let base = "z.object({ a: z.string() })"
    #expect(try accepts("\(base).merge(z.object({ b: z.number() }).strict())", #"{"a":"x","b":1}"#))
    #expect(
      !(try accepts("\(base).merge(z.object({ b: z.number() }).strict())", #"{"a":"x","c":1}"#)))
    #expect(try accepts("\(base).strict().partial()", "{}"))
    #expect(try accepts("z.string().array().max(2)", #"["a","b"]"#))
    #expect(!(try accepts("z.string().array().max(2)", #"["a","b","c"]"#)))
    #expect(try accepts("z.string().or(z.null())", "null"))
    #expect(try accepts("z.object({ a: z.string().catch(\"\") }).strict()", #"{"a":5}"#))
    #expect(try accepts("z.object({ a: z.unknown() }).strict()", "{}"))
    #expect(!(try accepts("z.array(z.string()).nonempty()", "[]")))
    // A refinement narrows: the read part is kept.
    #expect(try accepts("z.string().url().max(30)", #""x""#))
    for (schema, reason) in [
      ("z.string().trim().max(3)", ".trim(…) is not read"),
      ("\(base).catchall(z.number())", ".catchall(…) is not read"),
      ("\(base).extend({ ...other })", "a spread in .extend({…})"),
      (
        #"z.discriminatedUnion("kind", [z.object({ kind: z.enum(["a", "b"]) })])"#,
        "an option of z.discriminatedUnion whose kind is not a string literal"
      ),
    ] {
      switch SchemaReader("export const webToNativeSchema = \(schema);").schema("webToNativeSchema")
      {
      case .success(let shape): Issue.record("read \(shape) from \(schema)")
      case .failure(let error): #expect(error.reason == reason, "\(schema)")
      }
    }
  }

  @Test func theExampleOfEachKindRoundTripsThroughJSON() throws {
    let shape = try SchemaReader(
      """
      export const webToNativeSchema = z.object({
        count: z.number().int().min(3),
        ratio: z.number().min(0.25).max(0.5),
        on: z.boolean(),
        three: z.literal(3),
        yes: z.literal(true),
        point: z.tuple([z.number(), z.number()]),
        name: z.string().min(4).max(8).nullable(),
      }).strict();
      """
    ).schema("webToNativeSchema").get()
    let data = try JSONSerialization.data(withJSONObject: shape.example())
    let decoded = try JSONSerialization.jsonObject(with: data)
    #expect(shape.reason(decoded, at: "") == nil, "\(String(decoding: data, as: UTF8.self))")
    let object = try #require(decoded as? [String: Any])
    #expect((object["ratio"] as? NSNumber)?.doubleValue == 0.25)
    #expect((object["count"] as? NSNumber)?.intValue == 3)
  }

  @Test func aDiscriminatorNoOptionCarriesRefusesEveryMessage() throws {
    let renamed = Self.module.replacingOccurrences(
      of: #"webToNativeSchema = z.discriminatedUnion("type""#,
      with: #"webToNativeSchema = z.discriminatedUnion("kind""#)
    let schema = try schema(renamed)
    #expect(!schema.accepts(try json(#"{"type":"ack","messageId":"m","payload":{"ids":[]}}"#)))
  }

  @Test func whatQualifyDoesNotReadIsNamedNeverGuessed() {
    for (text, reason) in [
      ("export const webToNativeSchema = z.lazy(() => other);", "z.lazy is not read"),
      ("export const webToNativeSchema = z.intersection(a, b);", "z.intersection is not read"),
      ("export const webToNativeSchema = z.object({ ...base });", "a spread in z.object({…})"),
      (
        "export const webToNativeSchema = missing.strict();",
        "missing is not a schema of the module"
      ),
      (
        "const n = z.string().max(LIMIT);\nexport const webToNativeSchema = n;",
        ".max(…) of a value qualify does not compute"
      ),
    ] {
      switch SchemaReader(text).schema("webToNativeSchema") {
      case .success(let shape): Issue.record("read \(shape) from \(text)")
      case .failure(let error): #expect(error.reason == reason, "\(text)")
      }
    }
  }

  @Test func theBundledSamplesSchemaIsRead() throws {
    let build = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios])
    let read = try #require(build.bridge?.messageSchema)
    let schema = try #require(read.value.value, "\(read.value)")
    #expect(read.location?.file.hasSuffix("packages/core/src/navigation/mobileProtocol.ts") == true)
    // The page's hello as the shell sends it, and a start package of the real shape.
    let hello = try json(
      #"{"protocolVersion":3,"type":"web.hello","messageId":"w1","channelNonce":"n","sentAtMs":1,"payload":{"webBuildId":"web-3-3","minProtocolVersion":3,"maxProtocolVersion":3}}"#
    )
    #expect(schema.reason(hello, at: "") == nil)
  }
}

/// How the parser counts a message's aggregates, read as written.
@Suite struct BoundCountingReaderTests {
  static func counting(_ text: String) throws -> Sourced<[String: String]>? {
    let directory = try Fixtures.temporaryApp("bound-counting")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("packages/core/src/protocol.ts")
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: file)
    try Data(#"{"name": "x", "shell": "react-native-bridge"}"#.utf8).write(
      to: directory.appendingPathComponent("qualify.json"))
    let search = CodeSearch(
      try AppRepository(directory: directory.path), under: "packages/core/src",
      suffixes: [".ts"], quotes: ["\"", "'", "`"])
    return BridgeParserReader.counting(search)
  }

  /// Both idioms: one `if` per key in a tally, and an `else if` chain testing the list too.
  static let tally = """
    function count(value, counts) {
      for (const [key, child] of Object.entries(value)) {
        if (key === "geometry" && Array.isArray(child)) counts.coordinates += child.length;
        else if (key === "steps" && Array.isArray(child)) counts.steps += child.length;
        if (key === 'legs') counts.legs += child.length;
      }
    }
    export function bounds(message) {
      if (counts.coordinates > MAX_TOTAL_COORDINATES) return fail("too-many-coordinates");
      if (counts.steps > MAX_TOTAL_STEPS) return fail("too-many-steps");
      if (counts.legs > MAX_LEGS) return fail("too-many-legs");
    }
    """

  @Test func eachListIsCountedIntoTheTotalItIsComparedAs() throws {
    let read = try #require(try Self.counting(Self.tally))
    #expect(read.value == ["geometry": "coordinates", "steps": "steps", "legs": "legs"])
    #expect(read.location?.line == 3)
  }

  @Test func theBracedFormAndAReversedComparisonAreRead() throws {
    let braced = """
      function count(value, totals) {
        for (const [key, child] of Object.entries(value)) {
          if (key === "geometry") {
            totals.coordinates += child.length;
          }
          if (key === "steps") {
            totals.steps += child.length;
          } else if (key === "legs") {
            totals.legs += child.length;
          }
        }
        if (MAX_TOTAL_COORDINATES < totals.coordinates) return fail("too-many-coordinates");
        if (totals.steps > limits.steps || totals.legs >= MAX_LEGS) return fail("bounds");
      }
      """
    let read = try #require(try Self.counting(braced))
    #expect(read.value == ["geometry": "coordinates", "steps": "steps", "legs": "legs"])
    #expect(read.location?.line == 3)
  }

  @Test func aTotalNeverAddedToOrNeverComparedCountsNothing() throws {
    let uncounted = Self.tally.replacingOccurrences(
      of: "    if (key === 'legs') counts.legs += child.length;\n", with: "")
    #expect(uncounted != Self.tally)
    #expect(try Self.counting(uncounted)?.value == ["geometry": "coordinates", "steps": "steps"])
    let uncompared = Self.tally.replacingOccurrences(
      of: "  if (counts.steps > MAX_TOTAL_STEPS) return fail(\"too-many-steps\");\n", with: "")
    #expect(uncompared != Self.tally)
    #expect(try Self.counting(uncompared)?.value == ["geometry": "coordinates", "legs": "legs"])
    #expect(try Self.counting("export const A = 1;") == nil)
  }

  /// A walk that takes a depth must grow it on every call of itself, or its bound never
  /// stops it.
  @Test func aWalkWhoseDepthNeverGrowsIsNamed() throws {
    let walk = """
      export function parseMobileBridgeMessage(raw: string) { return hasForbiddenKey(raw); }
      function hasForbiddenKey(value: unknown, depth = 0): boolean {
        if (depth > 64 || typeof value !== "object" || value === null) return false;
        if (Array.isArray(value)) return value.some((item) => hasForbiddenKey(item, depth + 1));
        return Object.keys(value).some((key) =>
          FORBIDDEN.has(key) || hasForbiddenKey((value as any)[key], depth + 1));
      }
      """
    func walks(_ text: String) throws -> [String] { try judged(text).unbounded }
    func judged(_ text: String) throws -> (unbounded: [String], unread: [String]) {
      let directory = try Fixtures.temporaryApp("walk-depth")
      defer { try? FileManager.default.removeItem(at: directory) }
      let file = directory.appendingPathComponent("packages/core/src/protocol.ts")
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: file)
      try Data(#"{"name": "x", "shell": "react-native-bridge"}"#.utf8).write(
        to: directory.appendingPathComponent("qualify.json"))
      let search = CodeSearch(
        try AppRepository(directory: directory.path), under: "packages/core/src",
        suffixes: [".ts"], quotes: ["\"", "'", "`"])
      let read = BridgeParserReader.walks(search)
      return (read.unbounded.map(\.value), read.unread.map(\.value))
    }
    #expect(try walks(walk).isEmpty)
    #expect(try judged(walk).unread.isEmpty)
    let stuck = walk.replacingOccurrences(of: "[key], depth + 1)", with: "[key], depth + 0)")
    #expect(stuck != walk)
    #expect(try walks(stuck) == ["hasForbiddenKey((value as any)[key], depth + 0)"])
    let passedOn = walk.replacingOccurrences(of: "(item, depth + 1)", with: "(item, depth)")
    #expect(try walks(passedOn) == ["hasForbiddenKey(item, depth)"])
    // A countdown bounds its walk too.
    let countdown = walk.replacingOccurrences(of: "depth > 64", with: "depth <= 0")
      .replacingOccurrences(of: "depth + 1", with: "depth - 1")
    #expect(try walks(countdown).isEmpty)
    // A recursive function without a depth is not a bounded walk, and a module that does not
    // parse the bridge's messages is not read.
    #expect(
      try walks(
        "export function parseMobileBridgeMessage(raw) { return walk(raw); }\nfunction walk(v) { return walk(v.next); }"
      ).isEmpty)
    // A step away from the bound never reaches it: `depth - 1` under `depth > 64`.
    #expect(
      try walks(walk.replacingOccurrences(of: "(item, depth + 1)", with: "(item, depth - 1)"))
        == ["hasForbiddenKey(item, depth - 1)"])
    // A depth passed on through a local, or written the other way round, changes it.
    let throughLocal = walk.replacingOccurrences(
      of: "if (Array.isArray(value))", with: "const next = depth + 1;\n  if (Array.isArray(value))"
    ).replacingOccurrences(of: "(item, depth + 1)", with: "(item, next)")
      .replacingOccurrences(of: "[key], depth + 1)", with: "[key], 1 + depth)")
    #expect(throughLocal.contains("(item, next)"))
    #expect(try judged(throughLocal).unbounded.isEmpty)
    #expect(try judged(throughLocal).unread.isEmpty)
    // A local that does not grow it is as stuck as the depth itself.
    #expect(
      try walks(throughLocal.replacingOccurrences(of: "next = depth + 1", with: "next = depth"))
        == ["hasForbiddenKey(item, next)"])
    // A bound written as the condition to go on (`depth < MAX_DEPTH && …`) grows toward it.
    let goesOn = walk.replacingOccurrences(
      of: "if (depth > 64 || typeof value !== \"object\" || value === null) return false;",
      with:
        "if (!(depth < MAX_DEPTH) || typeof value !== \"object\" || value === null) return false;")
    #expect(goesOn != walk)
    #expect(try judged(goesOn).unbounded.isEmpty)
    // A countdown from its default: a step up never reaches 0.
    let fromMax = walk.replacingOccurrences(of: "depth = 0", with: "depth = MAX_DEPTH")
      .replacingOccurrences(of: "depth > 64", with: "depth <= 0")
    #expect(try judged(fromMax).unbounded.count == 1)
    #expect(
      try judged(fromMax.replacingOccurrences(of: "depth + 1", with: "depth - 1")).unbounded.isEmpty
    )
    // A call not evaluated does not hide a stuck one after it.
    let both = walk.replacingOccurrences(of: "(item, depth + 1)", with: "(item, step(depth))")
      .replacingOccurrences(of: "[key], depth + 1)", with: "[key], depth)")
    #expect(try judged(both).unbounded == ["hasForbiddenKey((value as any)[key], depth)"])
    #expect(try judged(both).unread.isEmpty)
    // A depth computed some other way is neither: it is named as not evaluated.
    let computed = walk.replacingOccurrences(of: "(item, depth + 1)", with: "(item, step(depth))")
    #expect(try judged(computed).unbounded.isEmpty)
    #expect(try judged(computed).unread == ["hasForbiddenKey(item, step(depth))"])
    // No depth given is the default again.
    #expect(
      try walks(walk.replacingOccurrences(of: "(item, depth + 1)", with: "(item)"))
        == ["hasForbiddenKey(item)"])
    #expect(
      try walks(stuck.replacingOccurrences(of: "parseMobileBridgeMessage", with: "parse")).isEmpty)
    // The bundled sample's walks grow their depth.
    let build = try #require(
      try AppRepository(directory: Fixtures.bridgeApp).builds(for: .prod)[.ios])
    #expect(build.bridge?.unboundedWalks.isEmpty == true)
    #expect(build.bridge?.unreadWalks.isEmpty == true)
  }
}

/// A schema that names itself through a method is refused as too deep, never followed forever.
@Suite struct SchemaReaderRecursionTests {
  @Test func aSelfReferenceThroughAMethodIsRefusedNotFollowedForever() {
    for text in [
      "export const webToNativeSchema = z.object({}).extend({ x: webToNativeSchema });",
      "export const webToNativeSchema = z.string().or(webToNativeSchema);",
      "export const webToNativeSchema = z.object({}).merge(webToNativeSchema);",
    ] {
      switch SchemaReader(text).schema("webToNativeSchema") {
      case .success(let shape): Issue.record("read \(shape) from \(text)")
      case .failure(let error): #expect(error.reason == "schemas nested too deep", "\(text)")
      }
    }
  }
}
