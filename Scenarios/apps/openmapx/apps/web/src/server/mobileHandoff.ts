import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { db } from "./db";

/**
 * The server side of the system-browser handoff.
 *
 * The callback code is stored only as its SHA-256; it lives two minutes and is
 * consumed in the same statement that reads it, so two redemptions cannot both
 * win. A well-formed but wrong verifier consumes the attempt too, and every
 * rejection looks the same.
 */

const CODE_TTL_MS = 2 * 60_000;
const REJECTED = { status: 400, body: { error: "invalid_handoff" } } as const;

const sha256 = (value: string) => createHash("sha256").update(value).digest("base64url");

export async function issueHandoffCode(userId: string, challenge: string, state: string) {
  const code = randomBytes(32).toString("base64url");
  await db.query(
    "insert into mobile_handoff (code_hash, user_id, challenge, state, expires_at) values ($1, $2, $3, $4, now() + $5 * interval '1 millisecond')",
    [sha256(code), userId, challenge, state, CODE_TTL_MS],
  );
  return code;
}

export async function redeemHandoffCode(code: string, verifier: string) {
  if (!/^[A-Za-z0-9_-]{43,128}$/.test(verifier)) return REJECTED;
  const row = await db.query(
    "delete from mobile_handoff where code_hash = $1 and expires_at > now() returning user_id, challenge",
    [sha256(code)],
  );
  if (!row) return REJECTED;
  const expected = Buffer.from(row.challenge);
  const actual = Buffer.from(sha256(verifier));
  if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return REJECTED;
  return { status: 200, body: { token: await issueOneTimeToken(row.user_id) } };
}

declare function issueOneTimeToken(userId: string): Promise<string>;
