import Artifacts
import Foundation
import HTTP
import QualifyCore

/// The embedded mock stack of one scenario run: fresh state, started in-process on loopback.
///
/// One HTTPS and one HTTP listener serve every origin of the topology as virtual hosts;
/// clients reach them through `origins` (each public `host:port` → its loopback port), so
/// URLs, `Host`, SNI, certificates and cookie domains all carry the app's real names.
public final class Stack: @unchecked Sendable {
  public let topology: StackTopology
  public let context: StackContext
  public let backend: Backend
  private let secure: HTTPServer
  private let cleartext: HTTPServer
  /// Public authority (`host:port`) → loopback port.
  public let origins: [String: UInt16]

  /// Starts a fresh stack for `build`.
  public init(build: AppBuild, material: StackMaterial, context: StackContext) throws {
    topology = try StackTopology(build: build)
    self.context = context
    backend = Backend(origin: topology.backend, settings: build.backend, context: context)

    let secureHosts = VirtualHosts()
    let cleartextHosts = VirtualHosts()
    func serve(_ origin: Origin, _ handler: HTTPHandler) {
      if origin.isSecure {
        secureHosts.add(origin.hostHeader, handler)
        // Port 80 of an HTTPS site redirects, as real deployments do: a cleartext request
        // that leaves the device is then visible in the evidence rather than unanswered.
        cleartextHosts.add(origin.host, RedirectToHTTPS(origin: origin))
      } else {
        cleartextHosts.add(origin.hostHeader, handler)
      }
    }
    serve(topology.backend, backend)
    if let devServer = topology.devServer { serve(devServer, DevServer()) }

    let credentials =
      context.behaviours.untrustedCertificate ? material.untrustedCredentials : material.credentials
    secure = try HTTPServer(handler: secureHosts, tls: credentials)
    do {
      cleartext = try HTTPServer(handler: cleartextHosts)
    } catch {
      secure.stop()
      throw error
    }
    var origins: [String: UInt16] = [:]
    for origin in topology.origins {
      if origin.isSecure {
        origins[origin.authority] = secure.port
        origins[Origin(scheme: "http", host: origin.host).authority] = cleartext.port
      } else {
        origins[origin.authority] = cleartext.port
      }
    }
    self.origins = origins
  }

  /// Stops both listeners.
  public func stop() {
    secure.stop()
    cleartext.stop()
  }

  deinit {
    stop()
  }
}

/// Answers every cleartext request for an HTTPS site with a permanent redirect to it.
struct RedirectToHTTPS: HTTPHandler {
  let origin: Origin

  func handle(_ request: HTTPRequest) -> HTTPResponse {
    .redirect(to: origin.url(request.target), status: 301)
  }
}
