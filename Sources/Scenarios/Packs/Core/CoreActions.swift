import Artifacts
import Devices
import Foundation
import HTTP
import QualifyCore

/// Actions of the spine: configuration fetches, plain API requests, the clock, the network.
enum CoreActions {
  static func device(_ context: ActionContext) throws -> Device {
    guard let device = context.arguments["device"].flatMap({ context.world.devices[$0] }) else {
      throw ScenarioRuntimeError("no device \(context.arguments["device"] ?? "")")
    }
    return device
  }

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
        "GET a path on the app's API origin (or an absolute URL) through the native HTTP stack; `over http` forces cleartext to the same host. `{scheme}` in it stands for the app's callback scheme.",
      example: "mail gets /__heartbeat__/ over http"
    ) { context in
      let app = try context.requireApp()
      let location = (context.arguments["location"] ?? "/")
        .replacingOccurrences(of: "{scheme}", with: app.loginScheme)
      let url = app.apiURL(location, scheme: context.arguments["scheme"])
      return Outcome.from(app.native.send(ClientRequest(url: url)), label: "GET \(url)")
    },
    ActionSpec(
      .world, "network lost on", [.value("device", .text)],
      summary:
        "DEVICE loses its network (airplane mode, a tunnel) until `network back on DEVICE`: every request of its Capacitor and session-contract apps' native HTTP stacks and of its system browser fails before reaching a server. The push service's own channel, and the stacks of the other shell kinds, are not cut.",
      example: "network lost on phone"
    ) { context in
      let device = try CoreActions.device(context)
      device.offline = true
      return Outcome("\(device.name) has no network")
    },
    ActionSpec(
      .world, "network back on", [.value("device", .text)],
      summary: "DEVICE has its network again.",
      example: "network back on phone"
    ) { context in
      let device = try CoreActions.device(context)
      device.offline = false
      return Outcome("\(device.name) has its network back")
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
        "advanced \(Durations.format(seconds)) to \(ISO8601.string(from: context.world.clock.now))"
      )
      return Outcome("advanced the clock by \(Durations.format(seconds))")
    },
  ]
}
