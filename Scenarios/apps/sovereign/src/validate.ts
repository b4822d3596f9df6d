// An instance URL as typed: a bare host gets https://, an explicit http:// is kept (a
// self-hosted instance on the LAN, a local dev server); the platform's transport policy
// decides whether it can be reached.
export function normalizeInstanceUrl(input: string): string | null {
  const trimmed = input.trim();
  if (!trimmed) return null;
  const withScheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(trimmed) ? trimmed : `https://${trimmed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (!url.hostname || url.username || url.password) return null;
  return url.origin;
}

export interface InstanceInfo {
  instanceName: string;
  platformVersion: string;
}

// GET /api/instance: public, unlike /api/admin/health (admin-key gated, 403).
export function parseInstanceResponse(status: number, body: unknown): InstanceInfo | null {
  if (status !== 200 || typeof body !== 'object' || body === null) return null;
  const fields = body as Record<string, unknown>;
  if (fields.status !== 'ok' || fields.product !== 'sovereign') return null;
  if (typeof fields.instanceName !== 'string' || typeof fields.platformVersion !== 'string') return null;
  return { instanceName: fields.instanceName, platformVersion: fields.platformVersion };
}
