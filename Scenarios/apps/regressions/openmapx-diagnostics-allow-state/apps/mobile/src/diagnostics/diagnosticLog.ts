/**
 * What a bug report may carry. Fields are kept by name per entry kind and
 * everything else is dropped: a field nobody listed never reaches the log,
 * however it arrived. Handoff material (the callback code, the state, the
 * PKCE verifier) is listed under no kind.
 */

export type EntryKind = "bridge.handshake" | "bridge.error" | "auth.outcome" | "shell.boot";

export const ALLOWED_FIELDS: Record<EntryKind, readonly string[]> = {
  "bridge.handshake": ["selected", "min", "max"],
  "bridge.error": ["code", "direction"],
  "auth.outcome": ["status", "state", "elapsedBucketMs"],
  "shell.boot": ["shellVersion", "webBuildId"],
};

const MAX_VALUE_LENGTH = 48;

export interface DiagnosticEntry {
  kind: EntryKind;
  fields: Record<string, string | number | boolean>;
  dropped: number;
}

export function diagnosticEntry(kind: EntryKind, input: Record<string, unknown>): DiagnosticEntry {
  const permitted = ALLOWED_FIELDS[kind] ?? [];
  const fields: DiagnosticEntry["fields"] = {};
  let dropped = 0;
  for (const [name, value] of Object.entries(input)) {
    if (!permitted.includes(name)) {
      dropped += 1;
      continue;
    }
    if (typeof value === "string") fields[name] = value.slice(0, MAX_VALUE_LENGTH);
    else if (typeof value === "number" || typeof value === "boolean") fields[name] = value;
    else dropped += 1;
  }
  return { kind, fields, dropped };
}

export function exportDiagnostics(entries: readonly DiagnosticEntry[]): string {
  return JSON.stringify({ entries });
}
