import { HANDED_TO_SYSTEM, RENDERABLE } from "./schemes";

/**
 * Where a navigation of the product WebView goes.
 *
 * One origin renders in the WebView: the one compiled into this binary. A link
 * elsewhere is handed to the operating system when a user could have meant it,
 * and refused otherwise. Origins are compared as parsed values (scheme, host,
 * port), never as strings: a prefix test lets `openmapx.com.evil.example` in.
 */

export type NavigationDecision = "allow-in-webview" | "open-system" | "reject";

export interface NavigationPolicyConfig {
  webOrigin: string;
}

/** Longer URLs are refused unparsed: no real link is this long. */
export const MAX_NAVIGATION_URL_LENGTH = 8 * 1024;


export function classifyNavigation(rawUrl: string, config: NavigationPolicyConfig): NavigationDecision {
  if (typeof rawUrl !== "string" || rawUrl.length === 0) return "reject";
  if (rawUrl.length > MAX_NAVIGATION_URL_LENGTH) return "reject";
  let target: URL;
  let product: URL;
  try {
    target = new URL(rawUrl);
    product = new URL(config.webOrigin);
  } catch {
    return "reject";
  }
  // `origin` drops credentials, so `https://user:pass@openmapx.com/` would compare equal.
  if (target.username || target.password) return "reject";
  if (!RENDERABLE.has(target.protocol)) {
    return HANDED_TO_SYSTEM.has(target.protocol) ? "open-system" : "reject";
  }
  if (target.origin === product.origin) return "allow-in-webview";
  // The product's host on another scheme or port is a downgrade, not a link.
  if (target.hostname === product.hostname) return "reject";
  return "open-system";
}
