import Artifacts
import Devices
import Foundation
import HTTP
import QualifyCore

/// Actions of the spine: configuration fetches, plain API requests, the clock.
enum CoreActions {
  static let all: [ActionSpec] = [
    ActionSpec(
      .app, "fetches config",
      summary: "GET /api/v1.0/config/ through the app's native HTTP stack, as bootstrap.tsx does.",
      example: "mail fetches config"
    ) { context in
      let app = try context.requireApp()
      let url = app.apiURL("/api/v1.0/config/")
      return Outcome.from(app.fetchConfig(), label: "GET \(url)")
    },
    ActionSpec(
      .app, "gets",
      [.value("location", .location), .keyword("over", "scheme", .choice(["http", "https"]))],
      summary:
        "GET a path on the app's API origin (or an absolute URL) through the native HTTP stack; `over http` forces cleartext to the same host.",
      example: "mail gets /__heartbeat__/ over http"
    ) { context in
      let app = try context.requireApp()
      let url = app.apiURL(
        context.arguments["location"] ?? "/", scheme: context.arguments["scheme"])
      return Outcome.from(app.native.send(ClientRequest(url: url)), label: "GET \(url)")
    },
    ActionSpec(
      .world, "advance", [.value("duration", .duration)],
      summary:
        "Moves the virtual clock forward (every TTL and cookie expiry reads it). Nothing sleeps, so a real backend's clock does not move.",
      example: "advance 61s",
      powers: [.movesBackendClock]
    ) { context in
      let seconds = context.arguments.duration("duration") ?? 0
      context.world.clock.advance(by: seconds)
      context.world.note(
        "clock",
        "advanced \(Durations.format(seconds)) to \(ISO8601DateFormatter().string(from: context.world.clock.now))"
      )
      return Outcome("advanced the clock by \(Durations.format(seconds))")
    },
  ]
}
