import Artifacts
import Foundation
import QualifyCore
import QualifyCrypto

/// The credentials the backend sends pushes with: its APNs auth key (ES256) with the key id
/// and team id, and its FCM service account (RS256) with the project it belongs to.
///
/// The backend's env either holds a transport's secrets or withholds all of them from qualify
/// (they are operator secrets, like the OTA signing key). All of them: the backend sends with
/// them. None: the harness makes its own and the run says what was not verified. Some: the
/// deployment as described sends nothing on that transport, as La Suite Messages' backend does
/// ("each gateway no-ops until its variables are all set"), and `apnsProblem` / `fcmProblem`
/// say why.
public struct PushCredentials: Sendable {
  public var apnsKey: Key
  public var apnsKeyId: String
  public var apnsTeamId: String
  public var fcmClientEmail: String
  public var fcmKeyId: String
  public var fcmKey: Key
  public var fcmTokenURI: String
  /// The Firebase project the service account belongs to (its JSON's `project_id`).
  public var fcmAccountProject: String?
  /// The variables whose secrets the harness made because the env withheld them.
  public var madeByHarness: [String] = []
  /// Why the backend's APNs or FCM sender is off, when it is.
  public var apnsProblem: String?
  public var fcmProblem: String?

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

  /// The APNs secrets, and FCM's.
  static let apnsSecrets = ["PUSH_APNS_KEY", "PUSH_APNS_KEY_ID", "PUSH_APNS_TEAM_ID"]
  static let fcmSecrets = ["PUSH_FCM_CREDENTIALS"]

  /// The secrets `settings` withholds entirely (the harness makes them), by transport group.
  public static func withheld(_ settings: BackendSettings) -> [String] {
    [apnsSecrets, fcmSecrets].filter { group in group.allSatisfy { !isSet(settings, $0) } }
      .flatMap { $0 }
  }

  /// Why a transport's sender is off in `settings`, nil when it is configured (or its secrets
  /// are withheld as a whole, and the harness stands in for them).
  public static func problems(_ settings: BackendSettings) -> (apns: String?, fcm: String?) {
    func problem(_ group: [String], _ required: [String]) -> String? {
      let set = group.filter { isSet(settings, $0) }
      let missing =
        (set.isEmpty ? [] : group.filter { !isSet(settings, $0) })
        + required.filter { !isSet(settings, $0) }
      guard !missing.isEmpty else { return nil }
      return
        "\(missing.joined(separator: ", ")) \(missing.count == 1 ? "is" : "are") not set\(set.isEmpty ? "" : " (\(set.joined(separator: ", ")) \(set.count == 1 ? "is" : "are"))"): the sender stays off"
    }
    return (
      problem(apnsSecrets, ["PUSH_APNS_BUNDLE_ID"]), problem(fcmSecrets, ["PUSH_FCM_PROJECT_ID"])
    )
  }

  private static func isSet(_ settings: BackendSettings, _ name: String) -> Bool {
    !(settings.env[name] ?? "").isEmpty
  }

  /// Reads the backend's push credentials, the harness's `fallback` standing in for a group
  /// of secrets the env withholds.
  /// - Throws: `InputError` naming the variable when one is set but unusable.
  static func read(_ settings: BackendSettings, fallback: PushCredentials) throws
    -> PushCredentials
  {
    var credentials = fallback
    credentials.madeByHarness = withheld(settings)
    (credentials.apnsProblem, credentials.fcmProblem) = problems(settings)
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
      // A service account belongs to one project: its JSON says which, and its address
      // (`…@<project>.iam.gserviceaccount.com`) too.
      credentials.fcmAccountProject = settings.fcmCredentialsProject
    } else {
      // The harness's account stands in for one of the backend's own project.
      credentials.fcmAccountProject = settings.fcmProjectId
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
      let credentials = try PushCredentials(
        apnsKey: try Key.generateP256(), apnsKeyId: "QUALIFYKEY", apnsTeamId: "QUALIFYTEAM",
        fcmClientEmail: "qualify-harness@firebase.iam.gserviceaccount.com",
        fcmKeyId: "qualify-harness",
        fcmKey: try SeededKeys.rsa(bits: 2048, seed: seedValue, label: "fcm-harness-key"),
        fcmTokenURI: "https://oauth2.googleapis.com/token")
      made = credentials
      return credentials
    }
  }
}
