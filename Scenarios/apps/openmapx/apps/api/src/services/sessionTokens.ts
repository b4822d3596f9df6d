import { randomBytes } from "node:crypto";
import { db } from "../db";
import { oneTimeTokens } from "../db/schema";

/** A token the page trades once, within a minute, for its session cookie. */
export async function issueOneTimeToken(userId: string): Promise<string> {
  const token = randomBytes(24).toString("base64url");
  await db.insert(oneTimeTokens).values({ token, userId, expiresAt: new Date(Date.now() + 60_000) });
  return token;
}
