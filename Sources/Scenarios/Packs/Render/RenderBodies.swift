import Foundation

/// The message bodies the render checks put in a thread (seed 000, item 3): a plain one, a
/// hostile one — everything a sender's HTML can try to run, load or navigate — and a huge
/// one. Each carries a marker only it has; every remote thing it names points at the beacon,
/// a loopback origin that stands for the Internet, so any request it gets is an escape.
enum RenderBodies {
  static let kinds = ["plain", "hostile", "huge", "link"]

  /// Where a body's ordinary link leads, on a site of its own: a page of the outside world
  /// that the system browser, not the app's view, opens. A request there is the link
  /// followed (with whatever the browser fetches for its window), not an escape.
  static let outsidePath = "/article"

  /// The HTML and the plain text of a body of `kind`, marked with `marker`.
  static func body(_ kind: String, marker: String, beacon: String, outside: String) -> (
    html: String, text: String
  ) {
    switch kind {
    case "hostile":
      return (
        """
        <base href="\(beacon)/base/">
        <meta http-equiv="refresh" content="0;url=\(beacon)/refresh">
        <link rel="stylesheet" href="\(beacon)/stylesheet.css">
        <p>\(marker)</p>
        <script>
          document.documentElement.setAttribute("data-ran", "script");
          try { parent.document.documentElement.setAttribute("data-body-ran", "script"); } catch (e) {}
          new Image().src = "\(beacon)/script";
        </script>
        <img src="\(beacon)/pixel.png" alt="" onerror="document.documentElement.setAttribute('data-ran', 'handler')">
        <img src="relative-to-base.png" alt="">
        <iframe src="\(beacon)/nested-frame"></iframe>
        <form action="\(beacon)/form" method="get"><input name="q" value="1"><button id="qualify-submit">Send</button></form>
        <a id="qualify-link" href="\(beacon)/link">a link</a>
        """,
        marker
      )
    case "huge":
      let paragraph =
        "<p>" + String(repeating: "Lorem ipsum dolor sit amet. ", count: 36) + "</p>\n"
      return (String(repeating: paragraph, count: 300) + "<p>\(marker)</p>", marker)
    case "link":
      return (
        """
        <p>Hello,</p><p>\(marker)</p>
        <p>The agenda is online: <a id="qualify-outside-link" href="\(outside)\(outsidePath)">read it</a>.</p>
        """,
        marker
      )
    default:
      return ("<p>Hello,</p><p>\(marker)</p><blockquote>quoted</blockquote>", marker)
    }
  }

  /// The script a control puts first in the bundle's pages: it rewrites what the renderer
  /// sets on a frame (`sandbox`, `srcdoc`), as a regression of the renderer's code would.
  /// Each edit is a function `(name, value) → [name, value] | null` (null: not set at all).
  static func prelude(_ edits: [String], scripts: [String] = []) -> String? {
    guard !edits.isEmpty || !scripts.isEmpty else { return nil }
    return scripts.joined(separator: "\n") + """
      (function () {
        var edits = [\(edits.joined(separator: ", "))];
        function edit(name, value) {
          var pair = [name, value];
          for (var i = 0; i < edits.length && pair; i++) pair = edits[i](pair[0], pair[1]);
          return pair;
        }
        var setAttribute = Element.prototype.setAttribute;
        Element.prototype.setAttribute = function (name, value) {
          if (!(this instanceof HTMLIFrameElement)) return setAttribute.call(this, name, value);
          var pair = edit(String(name).toLowerCase(), String(value));
          if (pair) setAttribute.call(this, pair[0], pair[1]);
        };
        var srcdoc = Object.getOwnPropertyDescriptor(HTMLIFrameElement.prototype, "srcdoc");
        Object.defineProperty(HTMLIFrameElement.prototype, "srcdoc", {
          configurable: true, get: srcdoc.get,
          set: function (value) {
            var pair = edit("srcdoc", String(value));
            if (pair) setAttribute.call(this, pair[0], pair[1]);
          }
        });
      })();
      """
  }

  /// Regressions of the thread view's layout rather than of a frame's attributes: a script
  /// of their own, put first in the bundle's pages.
  static let scripts: [String: String] = [
    // The frame keeps the browser's default height whatever its body holds (the resize on
    // load lost): the body is cut at 150 px, the rest behind a scroll of its own.
    "frames-not-sized":
      #"document.addEventListener("DOMContentLoaded", function () { var s = document.createElement("style"); s.textContent = "iframe { height: 150px !important; }"; document.head.appendChild(s); });"#
  ]

  /// Every regression a control can make, by name.
  static var controls: [String] { (Array(edits.keys) + Array(scripts.keys)).sorted() }

  /// The renderer's regressions the controls make.
  static let edits: [String: String] = [
    "sandbox-dropped": #"function (n, v) { return n === "sandbox" ? null : [n, v]; }"#,
    "sandbox-scripts-same-origin":
      #"function (n, v) { return n === "sandbox" ? [n, v + " allow-scripts allow-same-origin"] : [n, v]; }"#,
    "csp-removed":
      #"function (n, v) { return n === "srcdoc" ? [n, v.replace(/<meta[^>]*content-security-policy[^>]*>/i, "")] : [n, v]; }"#,
    "src-url":
      #"function (n, v) { return n === "srcdoc" ? ["src", URL.createObjectURL(new Blob([v], { type: "text/html" }))] : [n, v]; }"#,
    "renderer-broken": #"function (n, v) { return n === "srcdoc" ? null : [n, v]; }"#,
    "links-in-frame":
      #"function (n, v) { return n === "srcdoc" ? [n, v.replace(/<base target="_blank">/i, "")] : [n, v]; }"#,
    "links-replace-thread":
      #"function (n, v) { return n === "srcdoc" ? [n, v.replace(/<base target="_blank">/i, '<base target="_top">')] : n === "sandbox" ? [n, v + " allow-top-navigation"] : [n, v]; }"#,
    "csp-allows-remote-images":
      #"function (n, v) { return n === "srcdoc" ? [n, v.replace(/img-src[^;"]*/i, "img-src * data:")] : [n, v]; }"#,
  ]
}
