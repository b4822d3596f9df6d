import Artifacts
import Foundation
import QualifyCore
import QualifyCrypto

/// The credentials the backend sends pushes with: its APNs auth key (ES256) with the key id
/// and team id, and its FCM service account (RS256). Taken from the backend's env when it has
/// them (`PUSH_APNS_KEY…`, `PUSH_FCM_CREDENTIALS`); otherwise made by the harness for the run,
/// and the report says the pairing with the real Apple and Google accounts was not verified.
public struct PushCredentials: Sendable {
  public var apnsKey: Key
  public var apnsKeyId: String
  public var apnsTeamId: String
  public var fcmClientEmail: String
  public var fcmKeyId: String
  public var fcmKey: Key
  public var fcmTokenURI: String
  /// What the harness made because the env did not give it (for the caveat).
  public var madeByHarness: [String] = []

  /// The public halves, as Apple and Google hold them (derived once: a stack per scenario
  /// execution must not pay for a key export each time).
  public private(set) var apnsPublicKey: Key
  public private(set) var fcmPublicKey: Key

  init(
    apnsKey: Key, apnsKeyId: String, apnsTeamId: String, fcmClientEmail: String,
    fcmKeyId: String, fcmKey: Key, fcmTokenURI: String
  ) throws {
    self.apnsKey = apnsKey
    self.apnsKeyId = apnsKeyId
    self.apnsTeamId = apnsTeamId
    self.fcmClientEmail = fcmClientEmail
    self.fcmKeyId = fcmKeyId
    self.fcmKey = fcmKey
    self.fcmTokenURI = fcmTokenURI
    apnsPublicKey = try Key.publicKey(pem: try apnsKey.spkiPublicPEM())
    fcmPublicKey = try Key.publicKey(pem: try fcmKey.spkiPublicPEM())
  }

  /// Reads the backend's push credentials, filling what is missing from `fallback`.
  /// - Throws: `InputError` naming the variable when one is set but unusable.
  static func read(_ settings: BackendSettings, fallback: PushCredentials) throws
    -> PushCredentials
  {
    var credentials = fallback
    credentials.madeByHarness = []
    if let pem = settings.apnsKeyPEM {
      let key: Key
      do {
        key = try Key.privateKey(pem: pem)
      } catch {
        throw InputError(
          "PUSH_APNS_KEY is not a PEM private key (the .p8 file's content): \(error)")
      }
      guard key.isEC else {
        throw InputError("PUSH_APNS_KEY is not an EC P-256 key: an APNs auth key (.p8) is one")
      }
      credentials.apnsKey = key
      credentials.apnsPublicKey = try Key.publicKey(pem: try key.spkiPublicPEM())
    } else {
      credentials.madeByHarness.append("the APNs auth key (PUSH_APNS_KEY)")
    }
    if let id = settings.apnsKeyId { credentials.apnsKeyId = id }
    if let team = settings.apnsTeamId { credentials.apnsTeamId = team }
    if let json = settings.fcmCredentials {
      guard
        let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any],
        let email = object["client_email"] as? String,
        let pem = object["private_key"] as? String
      else {
        throw InputError(
          "PUSH_FCM_CREDENTIALS is not a service account's JSON (client_email, private_key)")
      }
      do {
        credentials.fcmKey = try Key.privateKey(pem: pem)
        credentials.fcmPublicKey = try Key.publicKey(pem: try credentials.fcmKey.spkiPublicPEM())
      } catch {
        throw InputError("PUSH_FCM_CREDENTIALS' private_key does not parse: \(error)")
      }
      credentials.fcmClientEmail = email
      credentials.fcmKeyId = object["private_key_id"] as? String ?? "unnamed"
      credentials.fcmTokenURI =
        object["token_uri"] as? String ?? "https://oauth2.googleapis.com/token"
    } else {
      credentials.madeByHarness.append("the FCM service account (PUSH_FCM_CREDENTIALS)")
      if let project = settings.fcmProjectId {
        credentials.fcmClientEmail = "qualify-harness@\(project).iam.gserviceaccount.com"
      }
    }
    return credentials
  }
}

extension StackMaterial {
  /// The backend's push credentials for `settings`, read once per run for each distinct
  /// env (every scenario execution starts a stack).
  func pushCredentials(_ settings: BackendSettings) throws -> PushCredentials {
    let key = [
      settings.apnsKeyPEM, settings.apnsKeyId, settings.apnsTeamId, settings.fcmCredentials,
      settings.fcmProjectId,
    ].map { $0 ?? "\u{0}" }.joined(separator: "\u{1}")
    if let known = pushCache.withLock({ $0[key] }) { return known }
    let credentials = try PushCredentials.read(settings, fallback: try harnessPushCredentials())
    pushCache.withLock { $0[key] = credentials }
    return credentials
  }

  /// Credentials of the harness's own making, once per run: an EC key as an APNs `.p8`, an
  /// RSA key as a service account's.
  func harnessPushCredentials() throws -> PushCredentials {
    try pushKeys.withLock { made in
      if let made { return made }
      var generator = SeededGenerator(seed: seedValue, label: "fcm-harness-key")
      let credentials = try PushCredentials(
        apnsKey: try Key.generateP256(), apnsKeyId: "QUALIFYKEY", apnsTeamId: "QUALIFYTEAM",
        fcmClientEmail: "qualify-harness@firebase.iam.gserviceaccount.com",
        fcmKeyId: "qualify-harness", fcmKey: try Key.generateRSA(bits: 2048, seededBy: &generator),
        fcmTokenURI: "https://oauth2.googleapis.com/token")
      made = credentials
      return credentials
    }
  }
}
