import HTTP

/// The Vite dev server a dev build's `server.url` points at (seed 000, *Hot reload*). It
/// exists on the developer's machine only, so the stack serves it on the dev channel alone:
/// a release build that still carries `server.url` finds nothing there, as a user's phone would.
struct DevServer: HTTPHandler {
  func handle(_ request: HTTPRequest) -> HTTPResponse {
    .html(
      "<!doctype html><html><head><script type=\"module\" src=\"/@vite/client\"></script></head><body><div id=\"root\"></div></body></html>"
    )
  }
}
