import { Preferences } from '@capacitor/preferences';

// Native storage (UserDefaults / SharedPreferences "CapacitorStorage"): it outlives a relaunch
// and WebView data eviction. The native navigation policy reads the active URL key directly.
export const KEY_INSTANCES = 'sovereign.instances';
export const KEY_ACTIVE_URL = 'sovereign.activeUrl';

export interface Instance {
  url: string;
  label: string;
  addedAt: number;
}

export async function listInstances(): Promise<Instance[]> {
  const { value } = await Preferences.get({ key: KEY_INSTANCES });
  try {
    const parsed = value ? JSON.parse(value) : [];
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

export async function getActiveUrl(): Promise<string | null> {
  return (await Preferences.get({ key: KEY_ACTIVE_URL })).value;
}

export async function setActiveUrl(url: string | null): Promise<void> {
  if (url === null) await Preferences.remove({ key: KEY_ACTIVE_URL });
  else await Preferences.set({ key: KEY_ACTIVE_URL, value: url });
}

export async function addInstance(entry: Instance): Promise<void> {
  const list = await listInstances();
  if (!list.some((instance) => instance.url === entry.url)) list.push(entry);
  await Preferences.set({ key: KEY_INSTANCES, value: JSON.stringify(list) });
  await setActiveUrl(entry.url);
}

export async function removeInstance(url: string): Promise<void> {
  const list = (await listInstances()).filter((instance) => instance.url !== url);
  await Preferences.set({ key: KEY_INSTANCES, value: JSON.stringify(list) });
  if ((await getActiveUrl()) !== url) await setActiveUrl(null);
}
