import { CapacitorCookies } from "@capacitor/core";

import { getRequestUrl } from "@/features/api/utils";

import { openAuthSession } from "./auth-session";
import { getNativeCsrfToken, setNativeCsrfToken } from "./csrf";
import { computeCodeChallenge, generateCodeVerifier } from "./pkce";

/**
 * Scheme the backend hands the login back on (MOBILE_AUTH_CALLBACK_SCHEMES allowlists
 * it). Both native projects register the same value.
 */
const AUTH_CALLBACK_SCHEME = import.meta.env.MOBILE_AUTH_SCHEME || "stmessages";

type ExchangeResponse = {
  csrf_token: string;
};

/**
 * Sign in through the system browser, which shares the identity provider's cookie with
 * the other apps of the suite, then trade the one-time token of the deep link for the
 * Django session (PKCE-bound).
 */
export const nativeLogin = async (): Promise<void> => {
  try {
    const codeVerifier = generateCodeVerifier();
    const callbackUrl = await openAuthSession(
      getRequestUrl("/api/v1.0/authenticate/", {
        mobile_scheme: AUTH_CALLBACK_SCHEME,
        code_challenge: await computeCodeChallenge(codeVerifier),
      }),
      AUTH_CALLBACK_SCHEME,
    );
    const token = new URL(callbackUrl).searchParams.get("code");
    if (!token) {
      throw new Error("no token in the login callback");
    }
    const response = await fetch(getRequestUrl("/api/v1.0/mobile/auth/exchange/"), {
      method: "POST",
      credentials: "include",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ token, code_verifier: codeVerifier }),
    });
    if (!response.ok) {
      throw new Error(`session exchange refused (${response.status})`);
    }
    const { csrf_token: csrfToken } =
      (await response.json()) as ExchangeResponse;
    setNativeCsrfToken(csrfToken);
    window.location.reload();
  } catch (error) {
    // A dismissed sheet ends here too: the login screen stays.
    console.warn("Native login did not complete:", error);
  }
};

/**
 * End the session in Django and at the identity provider, so that the next login stops on
 * the provider's form (ProConnect ignores prompt=login). Never rejects.
 */
export const nativeLogout = async (): Promise<void> => {
  try {
    // The browser holds the Django and the IdP cookies: the round-trip ends both and
    // comes back on scheme://logout.
    await openAuthSession(
      getRequestUrl("/api/v1.0/logout/", { mobile_scheme: AUTH_CALLBACK_SCHEME }),
      AUTH_CALLBACK_SCHEME,
    );
  } catch (error) {
    console.warn("IdP logout did not complete:", error);
  }
  try {
    // The round-trip only ends the app's session when the browser still holds its cookie.
    const csrfToken = getNativeCsrfToken();
    await fetch(getRequestUrl("/api/v1.0/mobile/auth/logout/"), {
      method: "POST",
      credentials: "include",
      headers: csrfToken ? { "X-CSRFToken": csrfToken } : undefined,
    });
  } catch (error) {
    // No network, or the backend is down: the orphaned server session expires on its own.
    console.warn("Safety-net logout failed:", error);
  } finally {
    // Whatever the POST did: a session cookie left in the jar would sign the app back in
    // as soon as the network returns.
    await CapacitorCookies.clearAllCookies();
  }
  setNativeCsrfToken(null);
  window.location.reload();
};
