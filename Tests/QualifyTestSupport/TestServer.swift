import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// An in-process server for tests that can be told to misbehave.
public final class TestServer: Sendable {
  /// How the server answers.
  public enum Behaviour: Sendable {
    /// Hand the request to the handler.
    case serve
    /// Hold the request for this many real seconds before answering (a hung peer).
    case stall(TimeInterval)
  }

  public let server: HTTPServer
  private struct State {
    var behaviour: Behaviour = .serve
    var received: [HTTPRequest] = []
  }

  private let state = Locked(State())

  /// Serves `handler` over HTTPS for `hosts` (or cleartext when `tls` is false).
  public init(
    hosts: Set<String> = ["api.test"], tls: Bool = true, limits: HTTPServer.Limits = .init(),
    handler: @escaping @Sendable (HTTPRequest) -> HTTPResponse
  ) throws {
    // The server's handler reaches back through a weak reference, so that the server does
    // not keep its owner alive.
    let box = Box()
    server = try HTTPServer(
      handler: ClosureHandler { request in box.owner?.answer(request, handler) ?? .notFound },
      tls: tls ? try TestPKI.credentials(hosts) : nil, limits: limits)
    box.set(self)
  }

  public var port: UInt16 { server.port }

  public func misbehave(_ behaviour: Behaviour) {
    state.withLock { $0.behaviour = behaviour }
  }

  /// Every request received so far.
  public var requests: [HTTPRequest] {
    state.withLock { $0.received }
  }

  public func stop() { server.stop() }

  private func answer(
    _ request: HTTPRequest, _ handler: (HTTPRequest) -> HTTPResponse
  ) -> HTTPResponse {
    let current = state.withLock { state in
      state.received.append(request)
      return state.behaviour
    }
    if case .stall(let seconds) = current { Thread.sleep(forTimeInterval: seconds) }
    return handler(request)
  }

  private final class Box: Sendable {
    private struct Weak { weak var owner: TestServer? }
    private let reference = Locked(Weak())
    var owner: TestServer? { reference.withLock { $0.owner } }
    func set(_ owner: TestServer) { reference.withLock { $0.owner = owner } }
  }
}
