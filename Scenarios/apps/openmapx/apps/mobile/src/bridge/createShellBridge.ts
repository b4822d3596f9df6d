import { nativeApplicationVersion, nativeBuildVersion } from "expo-application";
import { Platform } from "react-native";
import { MOBILE_PROTOCOL_MAX, MOBILE_PROTOCOL_MIN } from "@openmapx/core/navigation/mobileProtocol";
import { ChannelRegistry } from "./channel";
import { NativeBridge, type ShellDescription } from "./nativeBridge";

/**
 * The bridge as the app composes it today.
 *
 * No dispatcher and no capability provider is passed yet: every capability is
 * reported false, and a validated command other than an event acknowledgement
 * is answered with unsupported-capability. The native processors exist; they
 * are not connected to commands.
 */

export interface ShellBridgeOptions {
  webOrigin: string;
  inject: (script: string) => void;
  dispatch?: (command: unknown) => Promise<unknown>;
}

export function describeShell(): ShellDescription {
  return {
    shellVersion: nativeApplicationVersion ?? "0.0.0",
    shellBuild: nativeBuildVersion ?? "0",
    platform: Platform.OS === "android" ? "android" : "ios",
    protocol: { min: MOBILE_PROTOCOL_MIN, max: MOBILE_PROTOCOL_MAX },
    capabilities: {
      groundNavigation: false,
      transitNavigation: false,
      backgroundLocation: false,
      localNotifications: false,
      speech: false,
    },
    permission: "not-determined",
    activeSession: null,
  };
}

export function createShellBridge(options: ShellBridgeOptions) {
  const registry = new ChannelRegistry();
  const bridge = new NativeBridge({
    webOrigin: options.webOrigin,
    registry,
    inject: options.inject,
    dispatch: options.dispatch,
    describeShell,
  });
  return { registry, bridge };
}
