import type { ShellDescription } from "./nativeBridge";

/**
 * The script injected before any page script: it freezes the shell's
 * description and this document's nonce where the page can read but not
 * replace them.
 */
export function buildDescriptorScript(nonce: string, description: ShellDescription): string {
  const descriptor = JSON.stringify({ nonce, shell: description });
  return `(() => {
  const value = Object.freeze(JSON.parse(${JSON.stringify(descriptor)}));
  Object.defineProperty(window, "__OPENMAPX_SHELL__", { value, writable: false, configurable: false });
})();
true;`;
}
