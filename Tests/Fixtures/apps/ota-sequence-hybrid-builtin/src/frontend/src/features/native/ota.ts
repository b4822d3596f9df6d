// Written for qualify's tests in the shape of the La Suite Messages OTA client (seed 000 and
// the real repository's sequence ordering): each refusal returns before anything is staged.
import { CapacitorUpdater } from "@capgo/capacitor-updater";

const OTA_BOOT_FAILED_KEY = "ota-boot-failed-version";
const OTA_SEQUENCE_KEY = "ota-applied-sequence";

const readAppliedSequence = (): number | null => {
  const stored = localStorage.getItem(OTA_SEQUENCE_KEY);
  return stored === null ? null : Number(stored);
};

export const checkAndStageOtaUpdate = async (manifest: Manifest): Promise<void> => {
  const sequence = typeof manifest.sequence === "number" ? manifest.sequence : null;
  const { bundle, native } = await CapacitorUpdater.current();
  if (manifest.version === bundle.version) {
    return;
  }
  // if (localStorage.getItem(OTA_BOOT_FAILED_KEY) === "x") { return; }  (a comment)
  if (localStorage.getItem(OTA_BOOT_FAILED_KEY) === manifest.version) {
    console.warn(`OTA ${manifest.version} failed to boot before; skipping.`);
    return;
  }
  if (sequence !== null) {
    const belowBinary = compareVersionCounts(manifest.version, native);
    if (belowBinary !== null && belowBinary < 0) {
      return;
    }
    const floor = readAppliedSequence();
    if (floor !== null && sequence <= floor) {
      console.warn(`sequence ${sequence} is not above ${floor}`);
      return;
    }
  } else {
    const order = compareVersionCounts(manifest.version, bundle.version);
    if (order !== null && order <= 0) return;
  }
  await CapacitorUpdater.next({ id: (await CapacitorUpdater.download(manifest)).id });
};
