import Foundation
import QualifyCrypto

/// A bare TCP client, for sending what no well-behaved HTTP client would.
public enum RawSocket {
  /// Sends `bytes` to `host:port` and returns everything read until the peer closes or
  /// `timeout` passes.
  public static func exchange(
    host: String = "127.0.0.1", port: UInt16, bytes: [UInt8], timeout: TimeInterval = 2
  ) throws -> String {
    let fd = try connect(host: host, port: port)
    defer { close(fd) }
    var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - floor(timeout)) * 1_000_000))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes {
        Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if sent <= 0 { break }  // The server may close early (it answered already).
      offset += sent
    }
    var out: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = recv(fd, &buffer, buffer.count, 0)
      if count <= 0 { break }
      out.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// An open connection to `host:port`, for tests that hold connections (the caller closes
  /// it).
  /// - Parameter source: the local address to connect from (another loopback address, such
  ///   as 127.0.0.2, is another client to a per-address cap).
  public static func open(host: String = "127.0.0.1", port: UInt16, from source: String? = nil)
    throws -> Int32
  {
    try connect(host: host, port: port, from: source)
  }

  /// Sends `text` on an open connection; false once the peer has closed it.
  public static func send(_ text: String, on fd: Int32) -> Bool {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes {
      Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
    }
      == bytes.count
  }

  /// Whether the peer has closed `fd` (a read returns end of stream or an error within
  /// `timeout`).
  public static func isClosedByPeer(_ fd: Int32, timeout: TimeInterval = 0.2) -> Bool {
    var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&descriptor, 1, Int32(timeout * 1000)) > 0 else { return false }
    var byte: UInt8 = 0
    return recv(fd, &byte, 1, Int32(MSG_PEEK)) <= 0
  }

  /// Whether something accepts TCP connections at `host:port`.
  public static func isListening(host: String, port: UInt16) throws -> Bool {
    guard let fd = try? connect(host: host, port: port) else { return false }
    close(fd)
    return true
  }

  /// The first IPv4 address of this machine that is not loopback, if any.
  public static func nonLoopbackAddress() -> String? {
    var list: UnsafeMutablePointer<ifaddrs>?
    guard getifaddrs(&list) == 0, let first = list else { return nil }
    defer { freeifaddrs(list) }
    var cursor: UnsafeMutablePointer<ifaddrs>? = first
    while let entry = cursor {
      defer { cursor = entry.pointee.ifa_next }
      guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET)
      else { continue }
      var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
      getnameinfo(
        address, socklen_t(MemoryLayout<sockaddr_in>.size), &host, socklen_t(host.count), nil, 0,
        NI_NUMERICHOST)
      let text = String(cString: host)
      if !text.hasPrefix("127.") { return text }
    }
    return nil
  }

  private static func connect(host: String, port: UInt16, from source: String? = nil) throws
    -> Int32
  {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    if let source {
      var local = sockaddr_in()
      local.sin_family = sa_family_t(AF_INET)
      local.sin_addr.s_addr = inet_addr(source)
      let bound = withUnsafePointer(to: &local) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard bound == 0 else {
        close(fd)
        throw POSIXError(.EADDRNOTAVAIL)
      }
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr(host)
    let status = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard status == 0 else {
      close(fd)
      throw POSIXError(.ECONNREFUSED)
    }
    return fd
  }
}

/// A second, unrelated CA: what a client must not trust.
public enum CertificateAuthorityFixture {
  public static func otherCA() throws -> String {
    try QualifyCrypto.CertificateAuthority(commonName: "someone else's CA").certificatePEM
  }
}
