import Foundation
import QualifyCore
import QualifyCrypto
import Testing

@Suite struct DigestTests {
  @Test func sha256KnownVector() {
    #expect(
      Hex.encode(Digest.sha256(Array("abc".utf8)))
        == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  }

  @Test func hmacKnownVector() {
    // RFC 4231 test case 2.
    let mac = Digest.hmacSHA256(key: Array("Jefe".utf8), Array("what do ya want for nothing?".utf8))
    #expect(Hex.encode(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
  }

  @Test func pkceChallengeMatchesRFC7636AppendixB() {
    #expect(
      Digest.pkceChallenge(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
  }

  @Test func constantTimeEqual() {
    #expect(Digest.constantTimeEqual([1, 2, 3], [1, 2, 3]))
    #expect(!Digest.constantTimeEqual([1, 2, 3], [1, 2, 4]))
    #expect(!Digest.constantTimeEqual([1, 2], [1, 2, 3]))
  }
}

@Suite struct AESTests {
  @Test func roundTripWithPadding() throws {
    let key = Array(repeating: UInt8(7), count: 16)
    let iv = Array(repeating: UInt8(9), count: 16)
    for size in [0, 1, 15, 16, 17, 1000] {
      let plain = (0..<size).map { UInt8($0 % 251) }
      let sealed = try AES128CBC.encrypt(plain, key: key, iv: iv)
      #expect(sealed.count == (size / 16 + 1) * 16)
      #expect(try AES128CBC.decrypt(sealed, key: key, iv: iv) == plain)
    }
  }

  @Test func nistKnownAnswer() throws {
    // NIST SP 800-38A F.2.1 (first block), with the PKCS#7 padding block that follows.
    let key = Array(Hex.decode("2b7e151628aed2a6abf7158809cf4f3c") ?? Data())
    let iv = Array(Hex.decode("000102030405060708090a0b0c0d0e0f") ?? Data())
    let plain = Array(Hex.decode("6bc1bee22e409f96e93d7e117393172a") ?? Data())
    let sealed = try AES128CBC.encrypt(plain, key: key, iv: iv)
    #expect(Hex.encode(sealed.prefix(16)) == "7649abac8119b246cee98e9b12e9197d")
  }

  @Test func wrongKeyFailsToDecrypt() throws {
    let sealed = try AES128CBC.encrypt(
      Array("hello".utf8), key: Array(repeating: 1, count: 16), iv: Array(repeating: 2, count: 16))
    #expect(throws: (any Error).self) {
      let opened = try AES128CBC.decrypt(
        sealed, key: Array(repeating: 3, count: 16), iv: Array(repeating: 2, count: 16))
      // A wrong key almost always breaks the padding; if not, the text is still wrong.
      if opened == Array("hello".utf8) { return }
      throw CryptoError("garbage")
    }
  }

  @Test func badKeySizeIsRefused() {
    #expect(throws: CryptoError.self) {
      try AES128CBC.encrypt([1], key: [1, 2], iv: Array(repeating: 0, count: 16))
    }
  }
}

@Suite struct RSATests {
  static let key: Key = {
    do { return try Key.generateRSA(bits: 2048) } catch { fatalError("\(error)") }
  }()

  @Test func privateEncryptPublicDecryptRoundTrip() throws {
    let data = Array("a 16-byte key!!!".utf8)
    let sealed = try RSATests.key.privateEncrypt(data)
    #expect(sealed.count == 256)
    let publicKey = try Key.publicKey(pem: try RSATests.key.pkcs1PublicPEM())
    #expect(try publicKey.publicDecrypt(sealed) == data)
  }

  @Test func anotherKeyCannotRecover() throws {
    let other = try Key.generateRSA(bits: 2048)
    let sealed = try other.privateEncrypt([1, 2, 3])
    #expect(throws: (any Error).self) { try RSATests.key.publicDecrypt(sealed) }
  }

  @Test func pemFormatsAreCapgoCompatible() throws {
    let publicPEM = try RSATests.key.pkcs1PublicPEM()
    let privatePEM = try RSATests.key.pkcs1PrivatePEM()
    #expect(publicPEM.hasPrefix("-----BEGIN RSA PUBLIC KEY-----"))
    #expect(privatePEM.hasPrefix("-----BEGIN RSA PRIVATE KEY-----"))
    let reloaded = try Key.privateKey(pem: privatePEM)
    #expect(reloaded.bits == 2048)
    #expect(try Key.publicKey(pem: try RSATests.key.spkiPublicPEM()).bits == 2048)
  }

  @Test func rs256SignatureVerifiesOnlyForTheSignedData() throws {
    let data = Array("header.payload".utf8)
    let signature = try RSATests.key.signSHA256(data)
    #expect(RSATests.key.verifySHA256(data, signature: signature))
    #expect(!RSATests.key.verifySHA256(Array("header.other".utf8), signature: signature))
  }

  @Test func jwkNumbersRebuildTheSameKey() throws {
    let (n, e) = try RSATests.key.rsaPublicNumbers()
    #expect(e == [1, 0, 1])
    let rebuilt = try Key.rsaPublicKey(modulus: n, exponent: e)
    let data = Array("jws".utf8)
    #expect(rebuilt.verifySHA256(data, signature: try RSATests.key.signSHA256(data)))
  }

  @Test func garbagePEMIsAnError() {
    #expect(throws: (any Error).self) {
      try Key.publicKey(pem: "-----BEGIN RSA PUBLIC KEY-----\nnope\n-----END RSA PUBLIC KEY-----\n")
    }
  }
}

@Suite struct CertificateAuthorityTests {
  @Test func credentialsAreIssuedOncePerHostSet() throws {
    let authority = try CertificateAuthority()
    let a = try authority.credentials(for: ["api.test", "idp.test"])
    let b = try authority.credentials(for: ["idp.test", "api.test"])
    #expect(a.certificatePEM == b.certificatePEM)
    #expect(a.certificatePEM.hasSuffix(authority.certificatePEM))
    #expect(a.privateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
  }
}

@Suite struct SeededRSATests {
  @Test func theSameSeedGivesTheSameWorkingKey() throws {
    var a = SeededGenerator(seed: 99, label: "k")
    var b = SeededGenerator(seed: 99, label: "k")
    let first = try Key.generateRSA(bits: 2048, seededBy: &a)
    let second = try Key.generateRSA(bits: 2048, seededBy: &b)
    #expect(first.bits == 2048)
    #expect(try first.pkcs1PublicPEM() == second.pkcs1PublicPEM())
    let data = Array("jws input".utf8)
    #expect(first.verifySHA256(data, signature: try first.signSHA256(data)))
    let reparsed = try Key.privateKey(pem: try first.pkcs1PrivatePEM())
    #expect(try reparsed.publicDecrypt(first.privateEncrypt([1, 2, 3])) == [1, 2, 3])
  }

  @Test func anotherSeedGivesAnotherKey() throws {
    var a = SeededGenerator(seed: 1, label: "k")
    var b = SeededGenerator(seed: 2, label: "k")
    #expect(
      try Key.generateRSA(bits: 2048, seededBy: &a).pkcs1PublicPEM()
        != Key.generateRSA(bits: 2048, seededBy: &b).pkcs1PublicPEM())
  }
}

extension SeededRSATests {
  /// The moduli the seeds gave when each prime was confirmed by OpenSSL's `BN_check_prime`
  /// (64 rounds): the faster test must find the very same primes, or every run's IdP key,
  /// and every earlier report of a seed, would change.
  @Test func theFasterPrimeTestFindsThePrimesOpenSSLFound() throws {
    let recorded: [(UInt64, String, String)] = [
      (99, "k", "c8c42a63139f7a9084d5f1ca3809205fe35d130e8deab7b4cc46d8edbe1d9b8b"),
      (1, "idp-signing-key", "c3328dd268db8af47e9890a6725ba38fa5858a673cae968eaac3d22f08b3004d"),
    ]
    for (seed, label, modulusDigest) in recorded {
      var generator = SeededGenerator(seed: seed, label: label)
      let key = try Key.generateRSA(bits: 2048, seededBy: &generator)
      #expect(Hex.encode(Digest.sha256(try key.rsaPublicNumbers().modulus)) == modulusDigest)
    }
  }
}
