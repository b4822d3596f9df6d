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
