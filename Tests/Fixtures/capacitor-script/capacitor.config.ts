import type { CapacitorConfig } from "@capacitor/cli";

// Written for qualify's tests in the shape of the La Suite Messages config (seed 000): the
// synced capacitor.config.json is gitignored, and every per-build value comes from the env
// `cap sync` runs with.

// The OTA verification key travels as one base64 line (env files and CI secrets keep it whole).
const updaterKeyB64 = process.env.MOBILE_OTA_SIGNING_PUBLIC_KEY_B64;
const updaterKey = updaterKeyB64
  ? Buffer.from(updaterKeyB64, "base64").toString("utf8")
  : undefined;

// A build that follows an OTA channel without a key to check bundles with is refused.
if (process.env.NEXT_PUBLIC_MOBILE_OTA_MANIFEST_URL && !updaterKey) {
  throw new Error(
    "NEXT_PUBLIC_MOBILE_OTA_MANIFEST_URL is set but " +
      "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64 is not: refusing to sync",
  );
}

const builtinStamp = process.env.MOBILE_OTA_BUILD_ID;
const hotReload = process.env.MOBILE_DEV_SERVER_URL;
const appVersion = "2.4.0";

const config: CapacitorConfig & { appVersion: string } = {
  appVersion,
  appId: process.env.MOBILE_APP_ID || "local.suitenumerique.messages",
  appName: process.env.MOBILE_APP_NAME || "Messages",
  webDir: "dist",
  server: {
    cleartext: Boolean(hotReload || process.env.MOBILE_ALLOW_CLEARTEXT_FOR_DEV),
    ...(hotReload ? { url: hotReload } : {}),
  },
  plugins: {
    CapacitorHttp: { enabled: true },
    CapacitorCookies: { enabled: true },
    PushNotifications: { presentationOptions: ["badge"] },
    CapacitorUpdater: {
      autoUpdate: false,
      resetWhenUpdate: true,
      ...(updaterKey ? { publicKey: updaterKey } : {}),
      ...(builtinStamp ? { version: builtinStamp } : {}),
    },
  },
};

export default config;
