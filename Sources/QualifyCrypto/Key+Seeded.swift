import COpenSSL
import QualifyCore

extension Key {
  /// Raised whenever `generateRSA(bits:seededBy:)` would give another key for a seed: keys kept
  /// between runs are named by it (`SeededRSATests` holds the moduli two seeds give).
  public static let seededGeneratorVersion = 1

  /// An RSA key pair whose primes come from `generator`: the same seed gives the same key.
  ///
  /// For the simulated world only (the IdP's id_token key): the primes are found by an
  /// incremental search from seeded candidates, filtered by a small-prime sieve and confirmed
  /// by Miller–Rabin rounds on fixed prime bases. Several times faster than OpenSSL's FIPS
  /// 186-4 generation, which dominated a run's start-up, and reproducible from `--seed` like
  /// every other value. Real keys (`qualify ota keygen`) use `generateRSA(bits:)`.
  public static func generateRSA(bits: Int, seededBy generator: inout SeededGenerator) throws -> Key
  {
    let ctx = try check(BN_CTX_new(), "BN_CTX_new")
    defer { BN_CTX_free(ctx) }
    let e = try check(BN_new(), "BN_new")
    defer { BN_free(e) }
    BN_set_word(e, 65_537)
    let p = try prime(bits: bits / 2, generator: &generator, ctx: ctx)
    defer { BN_free(p) }
    var q = try prime(bits: bits - bits / 2, generator: &generator, ctx: ctx)
    while BN_cmp(p, q) == 0 {
      BN_free(q)
      q = try prime(bits: bits - bits / 2, generator: &generator, ctx: ctx)
    }
    defer { BN_free(q) }

    let n = try check(BN_new(), "BN_new")
    let d = try check(BN_new(), "BN_new")
    let pMinus1 = try check(BN_dup(p), "BN_dup")
    let qMinus1 = try check(BN_dup(q), "BN_dup")
    let phi = try check(BN_new(), "BN_new")
    let dmp1 = try check(BN_new(), "BN_new")
    let dmq1 = try check(BN_new(), "BN_new")
    let iqmp = try check(BN_new(), "BN_new")
    defer { for value in [n, d, pMinus1, qMinus1, phi, dmp1, dmq1, iqmp] { BN_clear_free(value) } }
    try check(BN_mul(n, p, q, ctx), "BN_mul")
    try check(BN_sub_word(pMinus1, 1), "BN_sub_word")
    try check(BN_sub_word(qMinus1, 1), "BN_sub_word")
    try check(BN_mul(phi, pMinus1, qMinus1, ctx), "BN_mul")
    try check(BN_mod_inverse(d, e, phi, ctx), "BN_mod_inverse")
    try check(BN_div(nil, dmp1, d, pMinus1, ctx), "BN_div")
    try check(BN_div(nil, dmq1, d, qMinus1, ctx), "BN_div")
    try check(BN_mod_inverse(iqmp, q, p, ctx), "BN_mod_inverse")

    let builder = try check(OSSL_PARAM_BLD_new(), "OSSL_PARAM_BLD_new")
    defer { OSSL_PARAM_BLD_free(builder) }
    // The builder keeps the name pointers: static strings only.
    let parts: [(StaticString, OpaquePointer)] = [
      ("n", n), ("e", e), ("d", d), ("rsa-factor1", p), ("rsa-factor2", q), ("rsa-exponent1", dmp1),
      ("rsa-exponent2", dmq1), ("rsa-coefficient1", iqmp),
    ]
    for (name, value) in parts {
      try check(OSSL_PARAM_BLD_push_BN(builder, cString(name), value), "OSSL_PARAM_BLD_push_BN")
    }
    let params = try check(OSSL_PARAM_BLD_to_param(builder), "OSSL_PARAM_BLD_to_param")
    defer { OSSL_PARAM_free(params) }
    let pkeyCtx = try check(
      EVP_PKEY_CTX_new_from_name(nil, "RSA", nil), "EVP_PKEY_CTX_new_from_name")
    defer { EVP_PKEY_CTX_free(pkeyCtx) }
    try check(EVP_PKEY_fromdata_init(pkeyCtx), "EVP_PKEY_fromdata_init")
    var key: OpaquePointer?
    try check(
      EVP_PKEY_fromdata(pkeyCtx, &key, COpenSSL_selection_keypair(), params), "EVP_PKEY_fromdata")
    return Key(taking: try check(key, "EVP_PKEY_fromdata"), hasPrivateKey: true)
  }

  /// The odd primes below 17 390: a candidate divisible by one of them is skipped without a
  /// modular exponentiation (about 89 % of odd candidates).
  /// The first 2,000 odd primes (3 … 17,393), by a sieve: trial division of each candidate by
  /// every prime found cost a tenth of a one-scenario run.
  private static let smallPrimes: [UInt] = {
    let limit = 17_400
    var composite = [Bool](repeating: false, count: limit + 1)
    var primes: [UInt] = []
    for candidate in 3...limit where !composite[candidate] && candidate % 2 == 1 {
      if primes.count == 2_000 { break }
      primes.append(UInt(candidate))
      var multiple = candidate * candidate
      while multiple <= limit {
        composite[multiple] = true
        multiple += 2 * candidate
      }
    }
    precondition(primes.count == 2_000, "the sieve's limit holds 2,000 odd primes")
    return primes
  }()

  /// A prime of exactly `bits` bits (top two bits set, so the modulus has the full size) with
  /// p − 1 prime to 65537: the first one at or above a seeded odd candidate, so that the
  /// search order (and the key a seed gives) does not depend on how each candidate is tested.
  private static func prime(bits: Int, generator: inout SeededGenerator, ctx: OpaquePointer) throws
    -> OpaquePointer
  {
    var bytes = generator.bytes((bits + 7) / 8)
    let excess = bytes.count * 8 - bits
    bytes[0] &= UInt8(0xFF >> excess)
    bytes[0] |= UInt8(0xC0 >> excess)
    bytes[bytes.count - 1] |= 1
    let candidate = try check(BN_bin2bn(bytes, Int32(bytes.count), nil), "BN_bin2bn")
    // The residues of the first candidate, once: the candidate at offset `step` is divisible
    // by p exactly when (residue + step) mod p is 0, so each step costs word arithmetic only.
    let residues = smallPrimes.map { UInt(BN_mod_word(candidate, $0)) }
    let residue65537 = UInt(BN_mod_word(candidate, 65_537))
    var step: UInt = 0
    while true {
      var composite = false
      for index in 0..<residues.count where (residues[index] &+ step) % smallPrimes[index] == 0 {
        composite = true
        break
      }
      if !composite && (residue65537 &+ step) % 65_537 != 1 {
        if try isProbablePrime(candidate, ctx: ctx) { return candidate }
      }
      try check(BN_add_word(candidate, 2), "BN_add_word")
      step += 2
    }
  }

  /// Miller–Rabin on the first prime bases. The candidates are random, not chosen by an
  /// adversary, so a composite passing even the first base is vanishingly rare (OpenSSL's
  /// `BN_check_prime` spends 64 rounds per prime, which was most of a seeded key's cost); the
  /// extra bases only make that rarer.
  private static func isProbablePrime(_ n: OpaquePointer, ctx: OpaquePointer) throws -> Bool {
    let nMinus1 = try check(BN_dup(n), "BN_dup")
    let d = try check(BN_new(), "BN_new")
    let x = try check(BN_new(), "BN_new")
    let mont = try check(BN_MONT_CTX_new(), "BN_MONT_CTX_new")
    defer {
      for value in [nMinus1, d, x] { BN_free(value) }
      BN_MONT_CTX_free(mont)
    }
    try check(BN_sub_word(nMinus1, 1), "BN_sub_word")
    var twos: Int32 = 0
    while BN_is_bit_set(nMinus1, twos) == 0 { twos += 1 }
    try check(BN_rshift(d, nMinus1, twos), "BN_rshift")
    try check(BN_MONT_CTX_set(mont, n, ctx), "BN_MONT_CTX_set")
    for base: UInt in [2, 3, 5, 7, 11, 13, 17, 19] {
      try check(BN_mod_exp_mont_word(x, base, d, n, ctx, mont), "BN_mod_exp_mont_word")
      if BN_is_one(x) == 1 || BN_cmp(x, nMinus1) == 0 { continue }
      var reachedMinus1 = false
      for _ in 1..<max(twos, 1) {
        try check(BN_mod_sqr(x, x, n, ctx), "BN_mod_sqr")
        if BN_cmp(x, nMinus1) == 0 {
          reachedMinus1 = true
          break
        }
        if BN_is_one(x) == 1 { break }
      }
      if !reachedMinus1 { return false }
    }
    return true
  }
}
