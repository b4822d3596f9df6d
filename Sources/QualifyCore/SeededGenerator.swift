import Foundation

/// A deterministic random number generator (xoshiro256**, seeded through SplitMix64).
///
/// Every token, nonce, verifier and identifier in a run comes from one of these, derived from
/// the run's `--seed`, so the same seed reproduces the same run. It is not a CSPRNG and is
/// never used outside the simulated world.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: (UInt64, UInt64, UInt64, UInt64)

  public init(seed: UInt64) {
    var splitmix = seed
    func next() -> UInt64 {
      splitmix &+= 0x9E37_79B9_7F4A_7C15
      var z = splitmix
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
    state = (next(), next(), next(), next())
  }

  /// A generator whose stream depends on the seed and on a label, so that scenarios running
  /// in any order (or in parallel) each get the same numbers for the same seed.
  public init(seed: UInt64, label: String) {
    self.init(seed: seed ^ SeededGenerator.fnv1a(label))
  }

  public mutating func next() -> UInt64 {
    let result = rotl(state.1 &* 5, 7) &* 9
    let t = state.1 << 17
    state.2 ^= state.0
    state.3 ^= state.1
    state.1 ^= state.2
    state.0 ^= state.3
    state.2 ^= t
    state.3 = rotl(state.3, 45)
    return result
  }

  /// `count` random bytes.
  public mutating func bytes(_ count: Int) -> [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(count)
    while out.count < count {
      var word = next()
      for _ in 0..<8 where out.count < count {
        out.append(UInt8(truncatingIfNeeded: word))
        word >>= 8
      }
    }
    return out
  }

  /// A URL-safe random token carrying `byteCount` bytes of randomness.
  public mutating func token(byteCount: Int = 32) -> String {
    Base64URL.encode(bytes(byteCount))
  }

  /// A lowercase hexadecimal string of `byteCount` random bytes.
  public mutating func hex(byteCount: Int) -> String {
    Hex.encode(bytes(byteCount))
  }

  private func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 {
    (x << k) | (x >> (64 - k))
  }

  static func fnv1a(_ text: String) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return hash
  }
}

/// A seeded generator shared by the components of one simulated world.
///
/// The mocks run on the HTTP server's thread while the runner drives devices on its own, so
/// the generator is behind a lock; the draw order is still deterministic because one request
/// is in flight at a time within a world.
public final class RandomSource: Sendable {
  private let generator: Locked<SeededGenerator>

  public init(seed: UInt64, label: String = "") {
    generator = Locked(SeededGenerator(seed: seed, label: label))
  }

  public func bytes(_ count: Int) -> [UInt8] {
    generator.withLock { $0.bytes(count) }
  }

  public func token(byteCount: Int = 32) -> String {
    Base64URL.encode(bytes(byteCount))
  }

  public func hex(byteCount: Int) -> String {
    Hex.encode(bytes(byteCount))
  }

  public func next() -> UInt64 {
    generator.withLock { $0.next() }
  }
}
