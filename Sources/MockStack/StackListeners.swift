import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

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

/// A world's virtual hosts, served on a worker's shared listeners or on listeners of their
/// own, with the loopback port each public origin is reached on.
final class MountedHosts: Sendable {
  /// Public authority (`host:port`) → loopback port.
  let origins: [String: UInt16]
  /// The loopback ports of the HTTPS and HTTP listeners.
  let ports: (https: UInt16, http: UInt16)
  private let own: (secure: HTTPServer, cleartext: HTTPServer)?
  private let shared: StackListeners?
  private let stopped = Locked(false)

  /// - Parameters:
  ///   - origins: the public origins served (their http twin too, for an https one).
  ///   - credentials: a certificate of the world's own: listeners are then never shared.
  init(
    secure: VirtualHosts, cleartext: VirtualHosts, origins served: [Origin],
    material: StackMaterial, sharing listeners: StackListeners?,
    credentials: ServerCredentials? = nil, ports requested: (https: UInt16, http: UInt16) = (0, 0)
  ) throws {
    if let listeners, credentials == nil {
      listeners.mount(secure: secure, cleartext: cleartext)
      shared = listeners
      own = nil
    } else {
      let server = try HTTPServer(
        handler: secure, tls: credentials ?? material.credentials, port: requested.https)
      do {
        own = (server, try HTTPServer(handler: cleartext, port: requested.http))
      } catch {
        server.stop()
        throw error
      }
      shared = nil
    }
    let ports =
      shared.map { ($0.secure.port, $0.cleartext.port) } ?? (
        own?.secure.port ?? 0, own?.cleartext.port ?? 0
      )
    self.ports = ports
    var origins: [String: UInt16] = [:]
    for origin in served {
      if origin.isSecure {
        origins[origin.authority] = ports.0
        origins[Origin(scheme: "http", host: origin.host).authority] = ports.1
      } else {
        origins[origin.authority] = ports.1
      }
    }
    self.origins = origins
  }

  /// Stops its own listeners, or unmounts from shared ones; only the first call acts (a late
  /// deinit must not unmount the next world).
  func stop() {
    // Checked and set under the lock, acted on outside it: only the first call gets through.
    let first = stopped.withLock { stopped in
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    if let own {
      own.secure.stop()
      own.cleartext.stop()
    }
    shared?.mount(secure: nil, cleartext: nil)
  }
}

extension MountedHosts {
  /// One handler at one origin (its http twin redirecting there when it is https), with the
  /// certificate a control may make untrusted: a world of a single site.
  convenience init(
    serving handler: any HTTPHandler, at origin: Origin, material: StackMaterial,
    context: StackContext, sharing listeners: StackListeners?
  ) throws {
    let secure = VirtualHosts()
    let cleartext = VirtualHosts()
    if origin.isSecure {
      secure.add(origin.hostHeader, handler)
      cleartext.add(origin.host, RedirectToHTTPS(origin: origin))
    } else {
      cleartext.add(origin.hostHeader, handler)
    }
    try self.init(
      secure: secure, cleartext: cleartext, origins: [origin], material: material,
      sharing: listeners,
      credentials: context.behaviours.untrustedCertificate ? material.untrustedCredentials : nil)
  }
}
