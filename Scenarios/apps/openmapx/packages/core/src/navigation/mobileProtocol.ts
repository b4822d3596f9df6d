import { z } from "zod";

/**
 * The wire contract between the web UI and the installed shell: bounded
 * navigation commands only, checked stage by stage before anything happens.
 */

/** Messages larger than this are refused before they are parsed. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** Coordinates across every geometry of one message. */
export const MAX_TOTAL_COORDINATES = 100_000;
/** Steps across every route of one message. */
export const MAX_TOTAL_STEPS = 10_000;
/** Legs of one itinerary or route set. */
export const MAX_LEGS = 512;
/** How far a message's clock may be from the receiver's: a bound, never an ordering. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;

export const MOBILE_PROTOCOL_MIN = 3;
export const MOBILE_PROTOCOL_MAX = 3;

/** The highest version both support; null when the ranges do not overlap (navigation stays off). */
export function negotiateMobileProtocol(
  web: { min: number; max: number },
  native: { min: number; max: number },
): number | null {
  const min = Math.max(web.min, native.min);
  const max = Math.min(web.max, native.max);
  return min <= max ? max : null;
}

export const WEB_TO_NATIVE_TYPES = [
  "web.hello",
  "session.prepare",
  "session.start",
  "session.replace",
  "settings.update",
  "snapshot.request",
  "session.stop",
  "session.complete",
  "event.ack",
  "location.request",
  "settings.open",
  "auth.open",
] as const;

export const NATIVE_TO_WEB_TYPES = [
  "native.hello",
  "permission.state",
  "snapshot.update",
  "navigation.event",
  "native.error",
  "auth.result",
] as const;

export const nativeCapabilitiesSchema = z
  .object({
    groundNavigation: z.boolean(),
    transitNavigation: z.boolean(),
    backgroundLocation: z.boolean(),
    localNotifications: z.boolean(),
    speech: z.boolean(),
  })
  .strict();

const MAX_ID_LENGTH = 128;
const boundedId = z.string().min(1).max(MAX_ID_LENGTH);
const counter = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);

/** A point as the routing engine orders it: longitude first. */
const lngLat = z.tuple([z.number().min(-180).max(180), z.number().min(-90).max(90)]);

const routeSchema = z
  .object({
    distance: z.number().nonnegative(),
    duration: z.number().nonnegative(),
    mode: z.string().max(64),
    geometry: z.array(lngLat).min(2),
    // Engines add their own fields to a step; the byte ceiling still bounds them.
    steps: z.array(z.object({ distance: z.number().nonnegative().optional() }).passthrough()),
    legs: z.array(z.unknown()).max(MAX_LEGS).optional(),
  })
  .passthrough();

const groundPackageSchema = z
  .object({
    kind: z.literal("ground"),
    route: routeSchema,
    alternatives: z.array(routeSchema).max(8).default([]),
    mode: z.enum(["driving", "walking", "cycling"]),
    destinationWaypoints: z.array(lngLat).min(1).max(64),
    routeSelectionIntent: z.enum(["automatic", "userSelected"]),
    routeOptions: z.record(z.string(), z.unknown()).default({}),
    locale: z.enum(["en", "de", "fr"]),
    units: z.enum(["metric", "imperial"]),
    settings: z
      .object({ voiceEnabled: z.boolean(), keepScreenOn: z.boolean(), voiceTiming: z.enum(["early", "normal", "late"]) })
      .strict(),
  })
  .strict();

const transitPackageSchema = z
  .object({
    kind: z.literal("transit"),
    itinerary: z.record(z.string(), z.unknown()),
    locale: z.enum(["en", "de", "fr"]),
    units: z.enum(["metric", "imperial"]),
    itineraryFingerprint: boundedId,
  })
  .strict();

const startPackage = z.discriminatedUnion("kind", [groundPackageSchema, transitPackageSchema]);

/** Every message: its type, the document's nonce, and a payload checked strictly. */
const envelope = <TType extends string, TPayload extends z.ZodTypeAny>(type: TType, payload: TPayload) =>
  z
    .object({
      protocolVersion: z.number().int().min(1).max(64),
      type: z.literal(type),
      messageId: boundedId,
      channelNonce: boundedId,
      sessionId: boundedId.optional(),
      revision: counter.optional(),
      sentAtMs: counter,
      payload,
    })
    .strict();

const anyPackage = z.record(z.string(), z.unknown());

export const webToNativeSchema = z.discriminatedUnion("type", [
  envelope(
    "web.hello",
    z
      .object({
        webBuildId: boundedId,
        minProtocolVersion: z.number().int().min(1).max(64),
        maxProtocolVersion: z.number().int().min(1).max(64),
      })
      .strict(),
  ),
  envelope("session.prepare", z.object({ startPackage }).strict()),
  envelope("session.start", z.object({}).strict()),
  envelope("session.replace", z.object({ startPackage }).strict()),
  envelope("settings.update", z.object({ voiceEnabled: z.boolean().optional() }).strict()),
  envelope("snapshot.request", z.object({}).strict()),
  envelope("session.stop", z.object({}).strict()),
  envelope("session.complete", z.object({}).strict()),
  envelope("event.ack", z.object({ eventIds: z.array(boundedId).max(256) }).strict()),
  envelope("location.request", z.object({ requestId: boundedId, accuracy: z.enum(["balanced", "precise"]) }).strict()),
  // A closed set of targets: a settings URI from the page would be an arbitrary intent.
  envelope("settings.open", z.object({ target: z.enum(["location", "notifications", "application"]) }).strict()),
  envelope("auth.open", z.object({ requestId: boundedId, purpose: z.enum(["sign-in", "link-provider", "add-passkey"]) }).strict()),
]);

export const nativeToWebSchema = z.discriminatedUnion("type", [
  envelope("native.hello", z.object({ capabilities: nativeCapabilitiesSchema }).passthrough()),
  envelope("permission.state", z.object({ permission: z.string().max(32) }).strict()),
  envelope("snapshot.update", z.object({ snapshot: anyPackage }).strict()),
  envelope("navigation.event", z.object({ eventId: boundedId }).passthrough()),
  envelope("native.error", z.object({ code: z.string().max(64) }).strict()),
  envelope(
    "auth.result",
    z
      .object({
        requestId: boundedId,
        status: z.enum(["ok", "cancelled", "failed"]),
        // Opaque and single-use; the page redeems it. Never a token.
        handoffCode: boundedId.optional(),
        state: boundedId.optional(),
        codeVerifier: z.string().min(43).max(128).optional(),
      })
      .strict(),
  ),
]);

export type BridgeParseError =
  | "too-large"
  | "not-json"
  | "polluting-key"
  | "schema"
  | "stale-nonce"
  | "clock-skew"
  | "too-many-coordinates"
  | "too-many-steps"
  | "too-many-legs";

export type Parsed<T> = { ok: true; message: T } | { ok: false; error: { code: BridgeParseError } };

/** Keys a later copy or spread could turn into a prototype write. */
const FORBIDDEN_KEYS = ["__proto__", "constructor", "prototype"];

function hasForbiddenKey(value: unknown, depth = 0): boolean {
  if (depth > 64 || typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return value.some((item) => hasForbiddenKey(item, depth + 1));
  return Object.getOwnPropertyNames(value).some(
    (key) =>
      FORBIDDEN_KEYS.includes(key) ||
      hasForbiddenKey((value as Record<string, unknown>)[key], depth + 1),
  );
}

/** Totals over the whole message: every geometry's points, every steps and legs list. */
function tally(value: unknown, totals = { coordinates: 0, steps: 0, legs: 0 }, depth = 0) {
  if (depth > 64 || typeof value !== "object" || value === null) return totals;
  for (const [key, child] of Object.entries(value)) {
    if (Array.isArray(child)) {
      if (key === "geometry") totals.coordinates += child.length;
      if (key === "steps") totals.steps += child.length;
      if (key === "legs") totals.legs += child.length;
    }
    tally(child, totals, depth + 1);
  }
  return totals;
}

/** Untrusted input from the page, stage by stage; only a stable code leaves on failure. */
export function parseMobileBridgeMessage(
  raw: string,
  options: { expectedNonce?: string; nowMs?: number } = {},
): Parsed<z.infer<typeof webToNativeSchema>> {
  const fail = (code: BridgeParseError) => ({ ok: false as const, error: { code } });
  if (new TextEncoder().encode(raw).byteLength > MAX_MESSAGE_BYTES) return fail("too-large");
  let decoded: unknown;
  try {
    decoded = JSON.parse(raw);
  } catch {
    return fail("not-json");
  }
  if (hasForbiddenKey(decoded)) return fail("polluting-key");
  const parsed = webToNativeSchema.safeParse(decoded);
  if (!parsed.success) return fail("schema");
  if (options.expectedNonce !== undefined && parsed.data.channelNonce !== options.expectedNonce) {
    return fail("stale-nonce");
  }
  if (options.nowMs !== undefined && Math.abs(options.nowMs - parsed.data.sentAtMs) > MAX_CLOCK_SKEW_MS) {
    return fail("clock-skew");
  }
  const totals = tally(parsed.data);
  if (totals.coordinates > MAX_TOTAL_COORDINATES) return fail("too-many-coordinates");
  if (totals.steps > MAX_TOTAL_STEPS) return fail("too-many-steps");
  if (totals.legs > MAX_LEGS) return fail("too-many-legs");
  return { ok: true, message: parsed.data };
}

