import Foundation
import HTTP
import QualifyCrypto

/// An in-process server for tests that can be told to misbehave.
public final class TestServer: @unchecked Sendable {
  /// How the server answers.
  public enum Behaviour: Sendable {
    /// Hand the request to the handler.
    case serve
    /// Hold the request for this many real seconds before answering (a hung peer).
    case stall(TimeInterval)
  }

  public let server: HTTPServer
  private let lock = NSLock()
  private var behaviour: Behaviour = .serve
  private var received: [HTTPRequest] = []

  /// Serves `handler` over HTTPS for `hosts` (or cleartext when `tls` is false).
  public init(
    hosts: Set<String> = ["api.test"], tls: Bool = true, limits: HTTPServer.Limits = .init(),
    handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
  ) throws {
    let box = Box()
    server = try HTTPServer(
      handler: ClosureHandler { request in box.owner?.answer(request, handler) ?? .notFound },
      tls: tls ? try TestPKI.credentials(hosts) : nil, limits: limits)
    box.owner = self
  }

  public var port: UInt16 { server.port }

  public func misbehave(_ behaviour: Behaviour) {
    lock.lock()
    self.behaviour = behaviour
    lock.unlock()
  }

  /// Every request received so far.
  public var requests: [HTTPRequest] {
    lock.lock()
    defer { lock.unlock() }
    return received
  }

  public func stop() { server.stop() }

  private func answer(
    _ request: HTTPRequest, _ handler: (HTTPRequest) -> HTTPResponse
  ) -> HTTPResponse {
    lock.lock()
    received.append(request)
    let current = behaviour
    lock.unlock()
    if case .stall(let seconds) = current { Thread.sleep(forTimeInterval: seconds) }
    return handler(request)
  }

  private final class Box: @unchecked Sendable {
    weak var owner: TestServer?
  }
}
