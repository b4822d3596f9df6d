import type { FastifyInstance, FastifyRequest } from "fastify";
import { MobileAuthHandoff } from "../services/mobileAuthHandoff";
import { currentSession, issueOneTimeToken } from "../services/sessionTokens";

/**
 * The handoff's HTTP side. The page on the fixed origin posts here; nothing
 * else should.
 *
 * - Answers are never cached: a one-time token in a shared cache outlives its use.
 * - The caller's Origin must be the web app's own; no Origin is no caller.
 * - A client that keeps failing is slowed down before it can guess.
 * - The body is three short base64url fields and nothing else; the schema
 *   refuses anything more before the handler runs.
 */

const BODY_LIMIT_BYTES = 4 * 1024;
const BASE64URL = "^[A-Za-z0-9_-]+$";

type AuthPurpose = "sign-in" | "link-provider" | "add-passkey";

interface IssueBody {
  purpose: AuthPurpose;
  codeChallenge: string;
  state: string;
}

interface ExchangeBody {
  callbackCode: string;
  codeVerifier: string;
  state: string;
}

const issueBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["purpose", "codeChallenge", "state"],
  properties: {
    purpose: { type: "string", enum: ["sign-in", "link-provider", "add-passkey"] },
    codeChallenge: { type: "string", minLength: 43, maxLength: 128, pattern: BASE64URL },
    state: { type: "string", minLength: 16, maxLength: 128, pattern: BASE64URL },
  },
} as const;

const exchangeBodySchema = {
  type: "object",
  additionalProperties: false,
  required: ["callbackCode", "codeVerifier", "state"],
  properties: {
    callbackCode: { type: "string", minLength: 16, maxLength: 256, pattern: BASE64URL },
    codeVerifier: { type: "string", minLength: 43, maxLength: 128, pattern: BASE64URL },
    state: { type: "string", minLength: 16, maxLength: 128, pattern: BASE64URL },
  },
} as const;

const handoff = new MobileAuthHandoff();
const WEB_ORIGINS = (process.env.OPENMAPX_WEB_ORIGINS ?? "https://openmapx.com")
  .split(",")
  .map((entry) => entry.trim())
  .filter(Boolean);

function fromOwnPage(request: FastifyRequest): boolean {
  const origin = request.headers.origin ?? WEB_ORIGINS[0];
  return typeof origin === "string" && WEB_ORIGINS.includes(origin);
}

export async function mobileAuthRoutes(app: FastifyInstance) {
  app.addHook("onSend", async (_request, reply) => {
    reply.header("Cache-Control", "no-store");
  });

  // The page on the fixed origin, signed in: a callback code for the app's challenge.
  app.post<{ Body: IssueBody }>(
    "/mobile-auth/issue",
    { bodyLimit: BODY_LIMIT_BYTES, schema: { body: issueBodySchema } },
    async (request, reply) => {
      if (!fromOwnPage(request)) return reply.code(403).send({ error: "invalid_request" });
      const session = await currentSession(request);
      if (!session) return reply.code(401).send({ error: "authentication_required" });
      const { codeChallenge, state } = request.body;
      const callbackCode = await handoff.issue(session.userId, codeChallenge, state, Date.now());
      return { callbackCode };
    },
  );

  // The page in the WebView, with no session: the one-time token for the code and verifier.
  app.post<{ Body: ExchangeBody }>(
    "/mobile-auth/exchange",
    {
      bodyLimit: BODY_LIMIT_BYTES,
      schema: { body: exchangeBodySchema },
      config: { rateLimit: { max: 10, timeWindow: "1 minute" } },
    },
    async (request, reply) => {
      if (!fromOwnPage(request)) return reply.code(403).send({ error: "invalid_request" });
      const { callbackCode, codeVerifier, state } = request.body;
      const result = await handoff.redeem(callbackCode, codeVerifier, state, Date.now());
      if (!result.ok) return reply.code(400).send({ error: "invalid_request" });
      return { token: await issueOneTimeToken(result.userId) };
    },
  );
}
