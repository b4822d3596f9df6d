export const HANDED_TO_SYSTEM = new Set(["https:", "http:", "mailto:", "tel:"]);
// What renders in the WebView: the web schemes, and blob: for the exported GPX preview.
export const RENDERABLE = new Set(["https:", "http:", "blob:"]);
