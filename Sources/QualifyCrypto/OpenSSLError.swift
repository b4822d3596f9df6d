import COpenSSL

/// A failed OpenSSL call: which call, and what OpenSSL's error queue said about it.
public struct OpenSSLError: Error, CustomStringConvertible, Sendable {
  public var call: String
  public var reasons: [String]

  /// Captures and clears the thread's OpenSSL error queue.
  init(call: String) {
    self.call = call
    var reasons: [String] = []
    while true {
      let code = ERR_get_error()
      if code == 0 { break }
      var buffer = [CChar](repeating: 0, count: 256)
      ERR_error_string_n(code, &buffer, buffer.count)
      reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self))
    }
    self.reasons = reasons
  }

  public var description: String {
    reasons.isEmpty ? "\(call) failed" : "\(call) failed: \(reasons.joined(separator: "; "))"
  }
}

/// Checks the usual OpenSSL convention (1 on success) and throws with the error queue.
@discardableResult
func check(_ status: Int32, _ call: String = #function) throws -> Int32 {
  guard status == 1 else { throw OpenSSLError(call: call) }
  return status
}

/// Unwraps an OpenSSL allocation or lookup that signals failure with NULL.
@discardableResult
func check<T>(_ value: T?, _ call: String) throws -> T {
  guard let value else { throw OpenSSLError(call: call) }
  return value
}

/// Runs `body` with a fresh memory BIO and returns what was written into it.
func withMemoryBIO(_ call: String, _ body: (OpaquePointer) throws -> Int32) throws -> [UInt8] {
  let bio = try check(BIO_new(BIO_s_mem()), "BIO_new")
  defer { BIO_free(bio) }
  guard try body(bio) == 1 else { throw OpenSSLError(call: call) }
  var pointer: UnsafeMutablePointer<CChar>?
  let length = COpenSSL_BIO_get_mem_data(bio, &pointer)
  guard let pointer, length > 0 else { return [] }
  return pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
    Array(UnsafeBufferPointer(start: $0, count: length))
  }
}

/// Runs `body` with a read-only memory BIO over `bytes`.
@discardableResult
func withReadBIO<R>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> R) throws -> R {
  try bytes.withUnsafeBytes { raw in
    let bio = try check(BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)), "BIO_new_mem_buf")
    defer { BIO_free(bio) }
    return try body(bio)
  }
}
