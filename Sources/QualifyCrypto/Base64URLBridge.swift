import QualifyCore

/// The crypto module's view of base64url, so callers do not need QualifyCore for PKCE.
enum Base64URLBridge {
  static func encode(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes) }
}
