import { randomBytes } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { db } from "../db";
import { oneTimeTokens } from "../db/schema";

/** A token the page trades once, within a minute, for its session cookie. */
export async function issueOneTimeToken(userId: string): Promise<string> {
  const token = randomBytes(24).toString("base64url");
  await db.insert(oneTimeTokens).values({ token, userId, expiresAt: new Date(Date.now() + 60_000) });
  return token;
}

/** The web app's session the request's cookie holds, if any. */
export async function currentSession(request: FastifyRequest): Promise<{ userId: string } | null> {
  const id = request.cookies["openmapx.session"];
  if (!id) return null;
  const rows = await db.query.sessions.findMany({ where: (s, { eq }) => eq(s.id, id), limit: 1 });
  return rows[0] ? { userId: rows[0].userId } : null;
}
