import { isNonPublicHost } from "./hosts";

/**
 * Build-time configuration of the shell: read once from the build environment,
 * checked, frozen. A signed binary cannot be pointed at another server: nothing
 * at run time (no settings screen, no deep-link parameter, no storage) reaches it.
 */

export interface MobileBuildConfig {
  release: boolean;
  webOrigin: string;
  apiOrigin: string;
  appId: string;
  scheme: string;
  appName: string;
}

type BuildEnv = Record<string, string | undefined>;

/** The official store identity, and the one origin it is ever built against. */
export const OFFICIAL_APP_ID = "org.openmapx.app";
export const OFFICIAL_ORIGIN = "https://openmapx.com";

function origin(value: string, release: boolean): URL {
  const url = new URL(value);
  if (url.pathname !== "/" || url.search || url.hash || url.username) {
    throw new Error("an origin is a scheme, a host and a port, nothing more");
  }
  if (release && url.protocol !== "https:") throw new Error("release origins must use HTTPS");
  if (release && isNonPublicHost(url.hostname)) throw new Error("release origins must be public hosts");
  return url;
}

export function readMobileConfig(env: BuildEnv): Readonly<MobileBuildConfig> {
  const release = env.OPENMAPX_MOBILE_RELEASE === "1";
  const web = origin(env.OPENMAPX_MOBILE_WEB_ORIGIN ?? OFFICIAL_ORIGIN, release);
  const api = origin(env.OPENMAPX_MOBILE_API_ORIGIN ?? web.origin, release);
  const appId = env.OPENMAPX_MOBILE_APP_ID ?? OFFICIAL_APP_ID;
  const scheme = env.OPENMAPX_MOBILE_SCHEME ?? "openmapx";
  if (appId === OFFICIAL_APP_ID && (web.origin !== OFFICIAL_ORIGIN || api.origin !== OFFICIAL_ORIGIN) && release) {
    throw new Error(`${OFFICIAL_APP_ID} is bound to ${OFFICIAL_ORIGIN}`);
  }
  return Object.freeze({
    release,
    webOrigin: web.origin,
    apiOrigin: api.origin,
    appId: release ? appId : `${appId}.dev`,
    scheme: release ? scheme : `${scheme}-dev`,
    appName: env.OPENMAPX_MOBILE_APP_NAME ?? (release ? "OpenMapX" : "OpenMapX Dev"),
  });
}
