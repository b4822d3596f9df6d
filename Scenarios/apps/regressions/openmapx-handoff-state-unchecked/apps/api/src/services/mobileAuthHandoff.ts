import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { and, eq, gt, isNull } from "drizzle-orm";
import { db } from "../db";
import { mobileAuthHandoff } from "../db/schema";

/**
 * The API's side of the system-browser handoff.
 *
 * The browser signs in, then hands the app one opaque callback code. Only the
 * app that started the attempt can redeem it: redemption needs the PKCE
 * verifier, which never left the app.
 *
 * - The code is stored as its SHA-256 only; a copy of the table redeems nothing.
 * - It lives two minutes.
 * - Redemption is one conditional UPDATE … RETURNING: of two racing requests,
 *   the second matches no row.
 * - The verifier and the state are compared after that statement, so a wrong
 *   one has already used the attempt up; every refusal is the same answer.
 */

export const HANDOFF_TTL_MS = 2 * 60_000;

export type RedeemResult = { ok: true; userId: string } | { ok: false; reason: "invalid" };

function digest(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("base64url");
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export class MobileAuthHandoff {
  async issue(userId: string, codeChallenge: string, state: string, nowMs: number) {
    const callbackCode = randomBytes(32).toString("base64url");
    await db.insert(mobileAuthHandoff).values({
      callbackCodeHash: digest(callbackCode),
      codeChallenge,
      state,
      userId,
      expiresAt: new Date(nowMs + HANDOFF_TTL_MS),
    });
    return callbackCode;
  }

  async redeem(
    callbackCode: string,
    codeVerifier: string,
    state: string,
    nowMs: number,
  ): Promise<RedeemResult> {
    if (!/^[A-Za-z0-9_-]{43,128}$/.test(codeVerifier)) return { ok: false, reason: "invalid" };
    const used = await db
      .update(mobileAuthHandoff)
      .set({ consumedAt: new Date(nowMs) })
      .where(
        and(
          eq(mobileAuthHandoff.callbackCodeHash, digest(callbackCode)),
          isNull(mobileAuthHandoff.consumedAt),
          gt(mobileAuthHandoff.expiresAt, new Date(nowMs)),
        ),
      )
      .returning({
        userId: mobileAuthHandoff.userId,
        codeChallenge: mobileAuthHandoff.codeChallenge,
        state: mobileAuthHandoff.state,
      });
    const row = used[0];
    if (!row) return { ok: false, reason: "invalid" };
    const verifierMatches = sameText(digest(codeVerifier), row.codeChallenge);
    if (!verifierMatches) return { ok: false, reason: "invalid" };
    return { ok: true, userId: row.userId };
  }
}
