/**
 * Sign-in, provider linking and passkey setup in the system browser.
 *
 * The app never holds a session: it gets an opaque callback code that is useless
 * without the PKCE verifier kept in memory for this one attempt. Nothing here is
 * written down, retried, or logged.
 */

export type AuthPurpose = "sign-in" | "link-provider" | "add-passkey";

export interface SystemAuthDeps {
  webOrigin: string;
  scheme: string;
  randomBytes: (length: number) => string;
  sha256: (input: string) => Promise<string>;
  openAuthSessionAsync: (url: string, redirectUrl: string) => Promise<string | null>;
}

/** RFC 7636: 43 to 128 characters; 32 random bytes give 43. */
const VERIFIER_BYTES = 32;
const STATE_BYTES = 8;

export class SystemAuthSession {
  private attempt: { state: string; codeVerifier: string } | null = null;

  constructor(private readonly deps: SystemAuthDeps) {}

  get redirectUrl(): string {
    return `${this.deps.scheme}://auth/callback`;
  }

  async open(purpose: AuthPurpose) {
    if (this.attempt) return { status: "failed" as const };
    const codeVerifier = this.deps.randomBytes(VERIFIER_BYTES);
    const state = this.deps.randomBytes(STATE_BYTES);
    this.attempt = { state, codeVerifier };
    try {
      const url = new URL("/mobile-auth", this.deps.webOrigin);
      url.searchParams.set("purpose", purpose);
      url.searchParams.set("state", state);
      url.searchParams.set("code_challenge", await this.deps.sha256(codeVerifier));
      url.searchParams.set("code_challenge_method", "S256");
      const callback = await this.deps.openAuthSessionAsync(url.toString(), this.redirectUrl);
      if (!callback) return { status: "cancelled" as const };
      const parsed = new URL(callback);
      if (parsed.protocol !== `${this.deps.scheme}:` || parsed.host !== "auth") return { status: "failed" as const };
      if (parsed.pathname !== "/callback" || parsed.searchParams.get("state") !== state) {
        return { status: "failed" as const };
      }
      const code = parsed.searchParams.get("code");
      if (!code) return { status: "failed" as const };
      return { status: "ok" as const, callbackCode: code, state, codeVerifier };
    } finally {
      this.attempt = null;
    }
  }
}
