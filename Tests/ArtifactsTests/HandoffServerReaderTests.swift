import Foundation
import QualifyCore
import QualifyTestSupport
import Testing

@testable import Artifacts

/// Issue 28: seed 001's handoff server read as servers write it — SQL in strings or a query
/// builder, the lifetime under any TTL name, the hash and the comparison through helpers.
@Suite struct HandoffServerReaderTests {
  /// A server of raw SQL strings (node-postgres).
  static let sql = """
    import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

    const CODE_TTL_SECONDS = 120;
    const REFUSED = { status: 400, body: { error: "invalid_handoff" } } as const;
    const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");

    export async function issue(userId: string, challenge: string) {
      const code = randomBytes(32).toString("base64url");
      await pool.query(
        "insert into handoff (code_hash, user_id, challenge) values ($1, $2, $3)",
        [sha256(code), userId, challenge],
      );
      return code;
    }

    export async function redeem(code: string, verifier: string) {
      const result = await pool.query(
        "delete from handoff where code_hash = $1 and created_at > now() - interval '2 minutes' returning user_id, challenge",
        [sha256(code)],
      );
      const row = result.rows[0];
      if (!row) return REFUSED;
      const a = Buffer.from(row.challenge);
      const b = Buffer.from(sha256(verifier));
      if (a.length !== b.length || !timingSafeEqual(a, b)) return REFUSED;
      return { status: 200, body: { userId: row.user_id } };
    }
    """

  /// The server's facts for `text` as `apps/api/src/services/handoff.ts`.
  static func read(_ text: String) throws -> HandoffServerCode {
    let directory = try Fixtures.temporaryApp("handoff-server")
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("apps/api/src/services/handoff.ts")
    try FileManager.default.createDirectory(
      at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: file)
    try Data(#"{"name": "x", "shell": "react-native-bridge"}"#.utf8).write(
      to: directory.appendingPathComponent("qualify.json"))
    let repository = try AppRepository(directory: directory.path)
    let search = CodeSearch(
      repository, under: "apps/api/src", suffixes: [".ts"], quotes: ["\"", "'", "`"])
    return HandoffServerReader(search: search).read()
  }

  @Test func rawSQLWithASecondsLifetimeIsRead() throws {
    let code = try Self.read(Self.sql)
    #expect(code.found)
    #expect(code.ttlName == "CODE_TTL_SECONDS")
    #expect(code.ttlMilliseconds?.value == 120_000)
    #expect(code.hashesCode?.value == true)
    #expect(code.consumesAtomically?.value == true)
    #expect(code.consumesAtomically?.location?.line == 18)
    #expect(code.wrongVerifierBurns?.value == true)
    #expect(code.uniformRejections?.value == true)
  }

  /// Each one-line regression of the SQL server is found at its line.
  @Test func eachRegressionOfTheSQLServerIsFound() throws {
    let select = try Self.read(
      Self.sql.replacingOccurrences(
        of: "\"delete from handoff where", with: "\"select * from handoff where"
      ).replacingOccurrences(
        of: "  const row = result.rows[0];\n",
        with:
          "  const row = result.rows[0];\n  await pool.query(\"delete from handoff where code_hash = $1\", [sha256(code)]);\n"
      ))
    let consume = try #require(select.consumesAtomically)
    #expect(!consume.value)
    #expect(consume.derivation.first?.contains("returns nothing") == true, "\(consume.derivation)")

    let plain = try Self.read(
      Self.sql.replacingOccurrences(of: "[sha256(code), userId", with: "[code, userId"))
    #expect(plain.hashesCode?.value == false)
    #expect(plain.hashesCode?.location?.line == 9)

    let unitless = try Self.read(
      Self.sql.replacingOccurrences(of: "CODE_TTL_SECONDS", with: "CODE_TTL"))
    #expect(unitless.ttlMilliseconds == nil)
    #expect(unitless.computedTTL?.value == "120", "a lifetime of no unit is not guessed at")

    let worded = try Self.read(
      Self.sql.replacingOccurrences(
        of: "if (!row) return REFUSED;",
        with: "if (!row) return { status: 410, body: { error: \"expired\" } };"))
    #expect(worded.uniformRejections?.value == false)
  }

  /// A server in TypeScript without semicolons (prettier's `semi: false`), in drizzle.
  static let semicolonless = """
    import { createHash, timingSafeEqual } from "node:crypto"

    export const HANDOFF_TTL_MS = 2 * 60_000

    function digest(value: string) {
      return createHash("sha256").update(value).digest("base64url")
    }

    export async function issue(userId: string, callbackCode: string, challenge: string) {
      await db.insert(handoff).values({
        userId,
        challenge,
        callbackCodeHash: digest(callbackCode),
      })
    }

    export async function redeem(callbackCode: string, verifier: string) {
      const used = await db
        .update(handoff)
        .set({ consumedAt: new Date() })
        .where(and(eq(handoff.callbackCodeHash, digest(callbackCode)), isNull(handoff.consumedAt)))
        .returning({ challenge: handoff.challenge })
      const row = used[0]
      if (!row) return { ok: false, reason: "invalid" }
      if (!timingSafeEqual(Buffer.from(digest(verifier)), Buffer.from(row.challenge))) return { ok: false, reason: "invalid" }
      return { ok: true }
    }
    """

  /// Each statement of semicolon-less code is its own: the conditional update is atomic, the
  /// same update without its condition is not, though a later statement says `isNull(`.
  @Test func semicolonlessCodeIsSplitIntoItsStatements() throws {
    let code = try Self.read(Self.semicolonless)
    #expect(code.consumesAtomically?.value == true)
    #expect(code.consumesAtomically?.location?.line == 19)
    #expect(code.hashesCode?.value == true)
    #expect(code.wrongVerifierBurns?.value == true)
    let loose = try Self.read(
      Self.semicolonless.replacingOccurrences(
        of: "and(eq(handoff.callbackCodeHash, digest(callbackCode)), isNull(handoff.consumedAt))",
        with: "eq(handoff.callbackCodeHash, digest(callbackCode))"
      ).replacingOccurrences(
        of: "  const row = used[0]\n",
        with:
          "  const row = used[0]\n  const pending = await db.select().from(handoff).where(isNull(handoff.consumedAt))\n"
      ))
    #expect(loose.consumesAtomically?.value == false)
  }

  /// The code stored beside its digest is the code stored; a digest held in a local is not.
  @Test func theCodeBesideItsDigestIsFoundAndALocalDigestIsRead() throws {
    let beside = try Self.read(
      Self.semicolonless.replacingOccurrences(
        of: "    callbackCodeHash: digest(callbackCode),",
        with: "    callbackCode,\n    callbackCodeHash: digest(callbackCode),"))
    #expect(beside.hashesCode?.value == false)
    #expect(beside.hashesCode?.derivation.first?.contains("callbackCode itself") == true)
    let local = try Self.read(
      Self.semicolonless.replacingOccurrences(
        of: "  await db.insert(handoff).values({",
        with: "  const stored = digest(callbackCode)\n  await db.insert(handoff).values({"
      ).replacingOccurrences(
        of: "    callbackCodeHash: digest(callbackCode),", with: "    callbackCodeHash: stored,"))
    #expect(local.hashesCode?.value == true)
  }

  /// A server where no statement consumes a row: nothing is taken as right, and the code
  /// is not failed for what may live in another file.
  @Test func aServerThatNeverConsumesIsNeitherAtomicNorFailed() throws {
    let code = try Self.read(
      """
      export const HANDOFF_TTL_MS = 120000;
      export async function redeem(code: string) {
        return await pool.query("select user_id from handoff where code_hash = $1", [code]);
      }
      """)
    #expect(code.consumesAtomically == nil, "the redemption may be elsewhere: unknown")
    #expect(code.wrongVerifierBurns == nil)
    #expect(code.hashesCode == nil, "no insert: how codes are stored is unknown")
  }
}
