import { loadBootstrap } from "./bootstrap";
import { replaceEnvelope, type SessionEnvelope } from "./sessionStore";

const API = process.env.EXPO_PUBLIC_API_ORIGIN ?? "https://api.heymoov.example";

export type LoginOutcome =
  | { status: "signed-in" }
  | { status: "wrong-credentials" }
  | { status: "failed"; code: string };

/** First-party password login: the app's own screen, no browser, no magic link. */
export async function passwordLogin(email: string, password: string): Promise<LoginOutcome> {
  const response = await fetch(`${API}/v1/mobile/auth/password/login`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    return body.error === "invalid_credentials"
      ? { status: "wrong-credentials" }
      : { status: "failed", code: String(body.error ?? response.status) };
  }
  await replaceEnvelope(body as SessionEnvelope);
  await loadBootstrap();
  return { status: "signed-in" };
}
