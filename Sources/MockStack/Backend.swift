import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The mock of the app's Django backend (seed 000): the configuration endpoint the app
/// bootstraps from, the heartbeat, and — in the authentication world — the confidential
/// OIDC client, the mobile session exchange and the protected API.
public final class Backend: HTTPHandler, @unchecked Sendable {
  public let origin: Origin
  public let settings: BackendSettings
  let context: StackContext
  private var router = Router()

  init(origin: Origin, settings: BackendSettings, context: StackContext) {
    self.origin = origin
    self.settings = settings
    self.context = context
    router.get("/api/v1.0/config/") { [unowned self] request in self.config(request) }
    router.get("/__heartbeat__/") { [unowned self] _ in self.heartbeat() }
    router.get("/__lbheartbeat__/") { [unowned self] _ in self.heartbeat() }
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    router.handle(request)
  }

  /// `/api/v1.0/config/`: what the app resolves at bootstrap (seed 000, *OTA updates*: the
  /// manifest URL is served here so the followed channel changes without a native build).
  func config(_ request: HTTPRequest) -> HTTPResponse {
    var body: [String: Any] = [
      "ENVIRONMENT": context.channel.rawValue,
      "PUSH_ENABLED": settings.pushEnabled,
      "MOBILE_AUTH_CALLBACK_SCHEMES": settings.callbackSchemes,
    ]
    let manifest = context.behaviours.configManifestURLOverride ?? settings.otaManifestURL
    body["MOBILE_OTA_MANIFEST_URL"] = manifest ?? NSNull()
    return .json(body)
  }

  func heartbeat() -> HTTPResponse {
    context.behaviours.backendUnhealthy
      ? .json(["status": "error", "database": "unreachable"], status: 503)
      : .json(["status": "ok"])
  }
}
