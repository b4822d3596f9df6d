import QualifyCore

/// The public key a Capgo v2 updater bakes in, as the plugin on a device accepts it.
public enum CapgoPublicKey {
  /// Why a device's updater cannot use `text` (a PEM, or base64 of one) as its public key,
  /// nil when it can. Capgo's Android plugin reads only a PKCS#1 `BEGIN RSA PUBLIC KEY`
  /// (CryptoCipherV2.decryptFile logs "not a valid RSA Public key" and leaves the bundle
  /// encrypted for any other form); the iOS plugin checks 256-byte signature blocks, RSA-2048,
  /// the pair `capgo key create` and the real repository's keygen make ("Each deployment
  /// generates its own RSA-2048 pair") — Android's plugin has no size check, so another size
  /// fails on iOS devices.
  /// Why a device's updater cannot use `text` as the key baked into the app's config
  /// (`plugins.CapacitorUpdater.publicKey`), nil when it can: the plugin takes the PEM text
  /// itself — Android's CryptoCipherV2.decryptFile first checks that it starts with
  /// `-----BEGIN RSA PUBLIC KEY-----` and leaves the bundle encrypted otherwise — so base64 of
  /// a PEM (the form a CI secret travels in) is refused there, whatever key it holds.
  public static func bakedProblem(_ text: String) -> String? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if !trimmed.hasPrefix("-----BEGIN"), let pem = Base64PEM.decode(trimmed),
      pem.hasPrefix("-----BEGIN")
    {
      return
        "the public key is base64 of a PEM, not the PEM text: Capgo's Android plugin requires the text to start with -----BEGIN RSA PUBLIC KEY----- and otherwise leaves every bundle encrypted (decode it, as the frontend's MOBILE_OTA_SIGNING_PUBLIC_KEY_B64 is decoded)"
    }
    return problem(text)
  }

  public static func problem(_ text: String) -> String? {
    guard let pem = Base64PEM.decode(text), pem.hasPrefix("-----BEGIN") else {
      return "the public key is neither a PEM nor base64 of a PEM"
    }
    let header = pem.prefix { $0 != "\n" && $0 != "\r" }
    guard header.hasPrefix("-----BEGIN RSA PUBLIC KEY-----") else {
      return
        "the public key is a \(header.replacingOccurrences(of: "-", with: "")) PEM: Capgo's plugin reads only a PKCS#1 BEGIN RSA PUBLIC KEY (on Android it leaves the bundle encrypted, so no update ever unpacks)"
    }
    guard let key = try? Key.publicKey(pem: pem) else {
      return "the public key does not parse as an RSA public key"
    }
    guard key.bits == 2048 else {
      return
        "the public key is RSA-\(key.bits): Capgo's iOS plugin checks 256-byte signature blocks (RSA-2048), so iOS devices refuse every bundle signed with it"
    }
    return nil
  }
}
