import { useCallback, useState } from "react";

/**
 * The page the app opens in the system browser (`/mobile-auth?purpose&state&code_challenge`).
 * Once the user is signed in here, it asks the API for a callback code bound to the app's
 * challenge and sends the browser to the app's compiled scheme with the code and the state.
 * No token, no session and no caller-chosen destination ever reach the URL.
 */

type AuthPurpose = "sign-in" | "link-provider" | "add-passkey";

export interface MobileAuthPageProps {
  purpose: AuthPurpose;
  state: string;
  codeChallenge: string;
  callbackScheme: string;
  apiUrl: string;
}

export function MobileAuthPage({ purpose, state, codeChallenge, callbackScheme, apiUrl }: MobileAuthPageProps) {
  const [failed, setFailed] = useState(false);

  const finish = useCallback(async () => {
    try {
      const response = await fetch(`${apiUrl.replace(/\/$/, "")}/mobile-auth/issue`, {
        method: "POST",
        credentials: "include",
        cache: "no-store",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ purpose, state, codeChallenge }),
      });
      const body = response.ok ? ((await response.json()) as { callbackCode?: unknown }) : {};
      if (typeof body.callbackCode !== "string") {
        setFailed(true);
        return;
      }
      const callback = new URL(`${callbackScheme}://auth/callback`);
      callback.searchParams.set("code", body.callbackCode);
      callback.searchParams.set("state", state);
      window.location.replace(callback.toString());
    } catch {
      setFailed(true);
    }
  }, [apiUrl, callbackScheme, codeChallenge, purpose, state]);

  return failed ? <p role="alert">Sign-in could not be completed. Start again from the app.</p> : <button onClick={finish}>Continue to the app</button>;
}
