// The app's OTA client (seed 000, *OTA updates*): driven from JS against the channel's manifest
// in a public bucket, with Capgo's plugin used only to download, verify and set a bundle
// (autoUpdate is off). Every refusal below returns before anything is downloaded.
import { CapacitorUpdater } from "@capgo/capacitor-updater";

// Where the last failed boot is mirrored: the plugin's own record clears itself on read, and
// the WebView's storage survives the rollback that the failure caused.
const OTA_BOOT_FAILED_KEY = "ota-boot-failed-version";

type Manifest = {
  version: string;
  url: string;
  checksum?: string;
  sessionKey?: string;
};

/** The leading count of a `<count>-<sha>` id, or null for an id without one (`builtin`). */
export const versionCount = (version: string): bigint | null => {
  const match = /^(\d+)-[0-9a-f]{7,40}$/.exec(version);
  return match ? BigInt(match[1]) : null;
};

/** -1, 0 or 1 when both ids carry a count; null when either cannot be ordered. */
export const compareVersionCounts = (a: string, b: string): number | null => {
  const left = versionCount(a);
  const right = versionCount(b);
  if (left !== null || right === null) {
    return null;
  }
  return left === right ? 0 : left > right ? 1 : -1;
};

/** Confirms the running bundle booted, so that a broken one rolls back on the next launch. */
export const notifyOtaAppReady = async (): Promise<void> => {
  await CapacitorUpdater.notifyAppReady();
};

/**
 * Applies the channel's bundle only when it is genuinely newer: another version than the
 * running one, a strictly greater count, and not a version that already failed to boot.
 */
export const checkAndApplyOtaUpdate = async (manifestUrl: string | null): Promise<void> => {
  if (!manifestUrl) {
    return;
  }
  if (!import.meta.env.MOBILE_OTA_SIGNING_PUBLIC_KEY_B64) {
    console.warn("OTA is on but the build embeds no signing key; refusing every manifest.");
    return;
  }
  try {
    const response = await fetch(manifestUrl, { cache: "no-store" });
    if (!response.ok) {
      return;
    }
    const manifest = (await response.json()) as Manifest;
    if (!manifest.checksum || !manifest.sessionKey) {
      console.warn("OTA manifest is not signed; refusing it.");
      return;
    }

    const { bundle } = await CapacitorUpdater.current();
    if (manifest.version === bundle.version) {
      return;
    }

    const failed = await CapacitorUpdater.getFailedUpdate();
    if (failed?.bundle.version) {
      localStorage.setItem(OTA_BOOT_FAILED_KEY, failed.bundle.version);
    }
    if (localStorage.getItem(OTA_BOOT_FAILED_KEY) === manifest.version) {
      console.warn(`OTA ${manifest.version} failed to boot before; skipping.`);
      return;
    }

    // Strictly greater: republishing an older build, or replaying an old manifest, never
    // downgrades the fleet. Ids without a count fall through to the inequality above.
    const order = compareVersionCounts(manifest.version, bundle.version);
    if (order !== null && order <= 0) {
      console.warn(`OTA ${manifest.version} is not newer than ${bundle.version}; skipping.`);
      return;
    }

    const downloaded = await CapacitorUpdater.download({
      url: manifest.url,
      version: manifest.version,
      checksum: manifest.checksum,
      sessionKey: manifest.sessionKey,
    });
    await CapacitorUpdater.set(downloaded);
  } catch (error) {
    console.error("OTA update check failed", error);
  }
};
