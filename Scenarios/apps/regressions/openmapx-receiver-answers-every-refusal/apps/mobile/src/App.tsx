import { type ReactElement, useMemo, useRef, useState } from "react";
import { Linking, StyleSheet, View } from "react-native";
import { WebView } from "react-native-webview";
import { readMobileConfig } from "../config/mobileConfig";
import { createShellBridge } from "./bridge/createShellBridge";
import { buildDescriptorScript } from "./bridge/descriptorScript";
import { classifyNavigation } from "./shell/originPolicy";

const styles = StyleSheet.create({ root: { flex: 1 }, webView: { flex: 1 } });

/** One WebView on the origin compiled into this binary; native UI only for what it cannot show. */
export function App(): ReactElement {
  const config = useMemo(() => readMobileConfig(process.env), []);
  const webViewRef = useRef<WebView>(null);
  // No dispatcher yet: the handshake reports every navigation capability unavailable.
  const shell = useMemo(
    () =>
      createShellBridge({
        webOrigin: config.webOrigin,
        inject: (script) => webViewRef.current?.injectJavaScript(script),
      }),
    [config.webOrigin],
  );
  const [nonce, setNonce] = useState(() => shell.registry.mintNonce());

  return (
    <View style={styles.root}>
      <WebView
        ref={webViewRef}
        source={{ uri: config.webOrigin }}
        style={styles.webView}
        originWhitelist={[config.webOrigin]}
        limitsNavigationsToAppBoundDomains
        geolocationEnabled={false}
        mediaCapturePermissionGrantType="deny"
        allowFileAccess={false}
        setSupportMultipleWindows={false}
        onShouldStartLoadWithRequest={(request) => {
          const decision = classifyNavigation(request.url, config);
          if (decision === "open-system") void Linking.openURL(request.url).catch(() => undefined);
          return decision === "allow-in-webview";
        }}
        // The immutable descriptor goes in before any page script, main frame only.
        injectedJavaScriptBeforeContentLoaded={buildDescriptorScript(nonce, shell.bridge.description)}
        injectedJavaScriptBeforeContentLoadedForMainFrameOnly
        onMessage={async (event) => {
          const outcome = await shell.bridge.receive(event.nativeEvent);
          // Tell the page why, so that a failed command can be shown to the user.
          if (outcome.status === "rejected") shell.bridge.send("native.error", { code: outcome.code });
        }}
        onLoadStart={() => shell.registry.adoptDocument(nonce)}
        onLoadEnd={() => setNonce(shell.registry.mintNonce())}
      />
    </View>
  );
}
