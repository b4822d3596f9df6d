/**
 * The web page's half of the system-browser handoff: the shell came back with
 * a callback code, the state and the verifier it kept in memory, and posted
 * them to this page as an `auth.result`. They are turned into a session once,
 * at once, and never written down: a failed exchange means signing in again.
 */

export interface HandoffResult {
  callbackCode: string;
  codeVerifier: string;
  state: string;
}

export interface ExchangeDeps {
  apiBaseUrl: string;
  fetch?: typeof globalThis.fetch;
  /** The auth library's own verify sets the session cookie, not the exchange. */
  verifyOneTimeToken: (token: string) => Promise<boolean>;
}

export type ExchangeOutcome = "ok" | "invalid" | "unavailable";

const FIELD = /^[A-Za-z0-9_-]+$/;

function bounded(value: string, min: number, max: number): boolean {
  return FIELD.test(value) && value.length >= min && value.length <= max;
}

export async function exchangeHandoff(
  result: HandoffResult,
  deps: ExchangeDeps,
): Promise<ExchangeOutcome> {
  if (
    !bounded(result.callbackCode, 16, 256) ||
    !bounded(result.codeVerifier, 43, 128) ||
    !bounded(result.state, 16, 128)
  ) {
    return "invalid";
  }
  const send = deps.fetch ?? globalThis.fetch;
  let token = "";
  try {
    const response = await send(`${deps.apiBaseUrl.replace(/\/$/, "")}/mobile-auth/exchange`, {
      method: "POST",
      credentials: "include",
      cache: "no-store",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        code: result.callbackCode,
        codeVerifier: result.codeVerifier,
        state: result.state,
      }),
    });
    if (!response.ok) return response.status >= 500 ? "unavailable" : "invalid";
    const body = (await response.json()) as { token?: unknown };
    if (typeof body.token !== "string" || body.token === "") return "invalid";
    token = body.token;
  } catch {
    // Whether the code was used is unknown: a fresh sign-in is the honest retry.
    return "unavailable";
  }
  try {
    return (await deps.verifyOneTimeToken(token)) ? "ok" : "invalid";
  } catch {
    return "unavailable";
  } finally {
    token = "";
  }
}
