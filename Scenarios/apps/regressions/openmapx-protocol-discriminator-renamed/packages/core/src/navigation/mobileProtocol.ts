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

const boundedId = z.string().min(1).max(128);
const sentAtMs = z.number().int().nonnegative();

/** Every message: its type, the document's nonce, and a payload checked strictly. */
const envelope = <TType extends string, TPayload extends z.ZodTypeAny>(type: TType, payload: TPayload) =>
  z
    .object({
      protocolVersion: z.number().int().min(1).max(64),
      type: z.literal(type),
      messageId: boundedId,
      channelNonce: boundedId,
      sentAtMs,
      payload,
    })
    .strict();

const anyPackage = z.record(z.string(), z.unknown());

export const webToNativeSchema = z.discriminatedUnion("kind", [
  envelope("web.hello", z.object({ minProtocolVersion: z.number().int(), maxProtocolVersion: z.number().int() }).strict()),
  envelope("session.prepare", z.object({ startPackage: anyPackage }).strict()),
  envelope("session.start", z.object({}).strict()),
  envelope("session.replace", z.object({ startPackage: anyPackage }).strict()),
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
