// The message body: the sender's HTML in a frame of its own, as the thread view of La Suite
// Messages renders it. srcdoc keeps it off the network; the sandbox gives it no scripts (so
// allow-same-origin, which lets the view size the frame, grants nothing a script could use)
// and lets a link open outside; the CSP refuses everything remote.
(function () {
  "use strict";

  var CSP = [
    // Images from our own origin and data URIs only: a remote image is a read receipt.
    "img-src 'self' data:",
    "default-src 'none'",
    "script-src 'none'",
    "style-src 'unsafe-inline'",
    "font-src 'none'",
    "connect-src 'none'",
    "media-src 'none'",
    "object-src 'none'",
    "child-src 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");

  function wrappedHtml(body) {
    return (
      "<html><head>" +
      '<meta http-equiv="Content-Security-Policy" content="' + CSP + '">' +
      '<base target="_blank">' +
      "<style>html, body { margin: 0; padding: 0; } " +
      "body { font-size: 14px; color: #24292e; } img { max-width: 100%; height: auto; }</style>" +
      "</head><body>" + body + "</body></html>"
    );
  }

  function resize(frame) {
    if (frame.contentWindow && frame.contentWindow.document.documentElement) {
      var height = frame.contentWindow.document.documentElement.getBoundingClientRect().height;
      frame.style.height = height + "px";
    }
  }

  window.MessageBody = function MessageBody(rawHtmlBody, rawTextBody) {
    var frame = document.createElement("iframe");
    frame.className = "thread-message__body";
    frame.setAttribute("sandbox", "allow-same-origin allow-popups");
    frame.addEventListener("load", function () { resize(frame); });
    frame.srcdoc = wrappedHtml(rawHtmlBody || escapeText(rawTextBody || ""));
    return frame;
  };

  function escapeText(text) {
    var element = document.createElement("pre");
    element.textContent = text;
    return element.outerHTML;
  }
})();
