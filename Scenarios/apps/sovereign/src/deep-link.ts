import type { Instance } from './store';

export type DeepLink =
  | { kind: 'known'; instance: Instance; path: string }
  | { kind: 'unknown'; origin: string; path: string }
  | null;

// Parsed from the string: Chromium WebView leaves URL.hostname empty for a non-special
// scheme such as sovereign:, so the authority is never read through URL.
export function resolveDeepLink(raw: string, instances: Instance[]): DeepLink {
  const match = /^sovereign:\/\/([^/?#]+)(\/[^?#]*)?/i.exec(raw.trim());
  if (!match) return null;
  const host = match[1].toLowerCase();
  const path = match[2] ?? '/';
  const instance = instances.find((entry) => new URL(entry.url).host.toLowerCase() === host);
  return instance ? { kind: 'known', instance, path } : { kind: 'unknown', origin: `https://${host}`, path };
}
