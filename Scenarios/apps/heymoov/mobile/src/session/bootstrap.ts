import { privateFetch } from "./apiClient";
import { purgeLegacyState, storedBootstrapVersion } from "./sessionStore";

export interface Bootstrap {
  bootstrapVersion: number;
  profile: { id: string; roles: string[] };
}

/**
 * What the app routes on and shows roles from: the server's bootstrap, never the token's
 * contents. Loaded at start, after login, and when a refresh brings another version.
 */
export async function loadBootstrap(): Promise<Bootstrap> {
  const response = await privateFetch("/v1/mobile/api/me");
  if (!response.ok) throw new Error(`bootstrap failed: ${response.status}`);
  return (await response.json()) as Bootstrap;
}

export async function startApp(): Promise<Bootstrap | null> {
  await purgeLegacyState();
  try {
    return await loadBootstrap();
  } catch {
    return null;
  }
}

export async function bootstrapIfChanged(known: number | null): Promise<Bootstrap | null> {
  const stored = await storedBootstrapVersion();
  return stored !== null && stored !== known ? loadBootstrap() : null;
}
