import {
  parseMobileBridgeMessage,
  WEB_TO_NATIVE_TYPES,
  type WebToNativeMessage,
} from "@openmapx/core/navigation/mobileProtocol";
import { classifyNavigation } from "../shell/originPolicy";
import type { ChannelRegistry } from "./channel";

export interface ShellDescription {
  shellVersion: string;
  shellBuild: string;
  platform: "ios" | "android";
  protocol: { min: number; max: number };
  capabilities: Record<string, boolean>;
  permission: string;
  activeSession: null;
}

export interface NativeBridgeDeps {
  webOrigin: string;
  registry: ChannelRegistry;
  inject: (script: string) => void;
  dispatch?: (command: unknown) => Promise<unknown>;
  describeShell: () => ShellDescription;
}

export type ReceiveOutcome =
  | { status: "handled"; type: string }
  | { status: "rejected"; code: string };

const COMMANDS: ReadonlySet<string> = new Set(WEB_TO_NATIVE_TYPES);

/**
 * The inbound side of the bridge. A message is checked in one order before
 * anything runs: the reporting document's origin, the channel nonce (in the
 * parser, with the size, schema and bounds), the direction, a message id seen
 * before, the handshake's protocol. The first two refusals stay silent.
 */
export class NativeBridge {
  constructor(private readonly deps: NativeBridgeDeps) {}

  async receive(event: { url?: string; data?: string }): Promise<ReceiveOutcome> {
    const { registry, webOrigin } = this.deps;
    const fromProduct =
      typeof event.url === "string" &&
      classifyNavigation(event.url, { webOrigin }) === "allow-in-webview";
    if (!fromProduct) return { status: "rejected", code: "wrong-origin" };

    const channel = registry.current();
    if (!channel) return { status: "rejected", code: "no-channel" };
    const parsed = parseMobileBridgeMessage(event.data ?? "", {
      expectedNonce: channel.nonce,
      nowMs: Date.now(),
    });
    if (!parsed.ok) return { status: "rejected", code: parsed.error.code };
    if (!COMMANDS.has(parsed.message.type)) return { status: "rejected", code: "not-a-command" };
    const command = parsed.message as WebToNativeMessage;

    if (!registry.rememberMessage(channel.nonce, command.messageId)) {
      return { status: "rejected", code: "duplicate-message" };
    }
    const handshake = registry.handshake();
    if (command.type !== "web.hello" && command.protocolVersion !== handshake?.protocolVersion) {
      return { status: "rejected", code: "protocol-mismatch" };
    }
    await this.deps.dispatch?.(command);
    return { status: "handled", type: command.type };
  }
}
