/**
 * A second export path, added for support: the whole shell snapshot, minus
 * what is listed here.
 */

const REDACTED_KEYS = ["cookie", "authorization", "handoffCode"];

export function bugReport(snapshot: Record<string, unknown>): string {
  return JSON.stringify(snapshot, (key, value) => (REDACTED_KEYS.includes(key) ? undefined : value));
}
