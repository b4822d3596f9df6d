import type { FastifyInstance, FastifyRequest } from "fastify";
import { MobileAuthHandoff } from "../services/mobileAuthHandoff";
import { issueOneTimeToken } from "../services/sessionTokens";

/**
 * The handoff's HTTP side. The page on the fixed origin posts here; nothing
 * else should.
 *
 * - Answers are never cached: a one-time token in a shared cache outlives its use.
 * - The caller's Origin must be the web app's own; no Origin is no caller.
 * - A client that keeps failing is slowed down before it can guess.
 */

const handoff = new MobileAuthHandoff();
const WEB_ORIGINS = process.env.OPENMAPX_WEB_ORIGINS ?? "https://openmapx.com";

function fromOwnPage(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  return typeof origin === "string" && WEB_ORIGINS.includes(origin);
}

export async function mobileAuthRoutes(app: FastifyInstance) {
  app.addHook("onSend", async (_request, reply) => {
    reply.header("Cache-Control", "no-store");
  });

  app.post<{ Body: { code: string; verifier: string; state: string } }>(
    "/api/mobile-auth/redeem",
    { config: { rateLimit: { max: 10, timeWindow: "1 minute" } } },
    async (request, reply) => {
      if (!fromOwnPage(request)) return reply.code(403).send({ error: "invalid_request" });
      const { code, verifier, state } = request.body;
      const result = await handoff.redeem(code, verifier, state, Date.now());
      if (!result.ok) return reply.code(400).send({ error: "invalid_request" });
      return { token: await issueOneTimeToken(result.userId) };
    },
  );
}
