import Foundation
import HTTP

/// A pair of loopback listeners (HTTPS and HTTP) that one runner worker reuses for every
/// world it runs: each world mounts its own virtual hosts, so state stays fresh while
/// sockets, threads and TLS connections are reused.
public final class StackListeners: Sendable {
  let secureHandler = SwitchableHandler()
  let cleartextHandler = SwitchableHandler()
  let secure: HTTPServer
  let cleartext: HTTPServer

  public init(material: StackMaterial) throws {
    secure = try HTTPServer(handler: secureHandler, tls: material.credentials)
    do {
      cleartext = try HTTPServer(handler: cleartextHandler)
    } catch {
      secure.stop()
      throw error
    }
  }

  func mount(secure secureHosts: VirtualHosts?, cleartext cleartextHosts: VirtualHosts?) {
    secureHandler.mount(secureHosts)
    cleartextHandler.mount(cleartextHosts)
  }

  public func stop() {
    secure.stop()
    cleartext.stop()
  }

  deinit {
    stop()
  }
}
