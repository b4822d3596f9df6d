import Foundation
import QualifyCore

/// Reads the parts of a Keycloak realm export the mock IdP needs, in the shapes Keycloak
/// writes: one realm object, or an array of realms (`kc.sh export` of several realms, such
/// as `[master, messages]`), users with plain test passwords or hashed credentials.
enum RealmReader {
  /// - Parameter clientID: the backend's `OIDC_RP_CLIENT_ID`: the realm holding that client
  ///   is the app's; without it, the first realm that is not `master`.
  static func read(text: String, file: String, clientID: String?) throws -> RealmSettings {
    let json = try JSONDocument(text: text, file: file).value
    let realms: [JSONValue]
    if let array = json.array {
      realms = array
    } else {
      realms = [json]
    }
    guard !realms.isEmpty else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: 1, column: 1), "the realm export holds no realm")
    }
    func holds(_ realm: JSONValue, _ id: String) -> Bool {
      realm["clients"]?.array?.contains { $0["clientId"]?.string == id } ?? false
    }
    let chosen =
      clientID.flatMap { id in realms.first { holds($0, id) } }
      ?? realms.first { $0["realm"]?.string != "master" } ?? realms[0]
    return try settings(of: chosen, file: file)
  }

  private static func acrMap(_ raw: String?, owner: String, file: String, line: Int?) throws
    -> [String: Int]
  {
    guard let raw, !raw.isEmpty else { return [:] }
    // Keycloak stores the map as a JSON object serialised into a string attribute.
    guard let object = try? JSONDocument(text: raw, file: file).value, object.members != nil
    else {
      throw Diagnostic.error(
        at: FileLocation(file: file, line: line ?? 1, column: 1),
        "acr.loa.map of \(owner) is not a JSON object",
        hint: "Keycloak expects a string such as \"{\\\"eidas1\\\":1}\"")
    }
    var levels: [String: Int] = [:]
    for member in object.members ?? [] {
      if let level = member.value.number {
        levels[member.key] = Int(level)
      } else if let level = member.value.string.flatMap(Int.init) {
        levels[member.key] = level
      }
    }
    return levels
  }

  private static func settings(of json: JSONValue, file: String) throws -> RealmSettings {
    let realmAttributes = json["attributes"]
    let realmLevels = try acrMap(
      realmAttributes?["acr.loa.map"]?.string, owner: "the realm", file: file,
      line: realmAttributes?.line(of: "acr.loa.map"))
    var clients: [RealmSettings.Client] = []
    for client in json["clients"]?.array ?? [] {
      guard let id = client["clientId"]?.string else { continue }
      let attributes = client["attributes"]
      let own = try acrMap(
        attributes?["acr.loa.map"]?.string, owner: "client \"\(id)\"", file: file,
        line: attributes?.line(of: "acr.loa.map"))
      let redirects = client["redirectUris"]?.array?.compactMap(\.string) ?? []
      // Keycloak separates post-logout URIs with "##"; "+" means "the redirect URIs", and a
      // client exported without the attribute gets "+" on import.
      var postLogout: [String] = []
      for uri in (attributes?["post.logout.redirect.uris"]?.string ?? "+")
        .components(separatedBy: "##") where !uri.isEmpty
      {
        if uri == "+" { postLogout += redirects } else { postLogout.append(uri) }
      }
      clients.append(
        RealmSettings.Client(
          clientId: id, secret: client["secret"]?.string, redirectURIs: redirects,
          postLogoutRedirectURIs: postLogout,
          // A client without its own map uses the realm's (Keycloak's ACR-to-LoA fallback).
          acrLevels: own.isEmpty ? realmLevels : own,
          acrMapLine: own.isEmpty && !realmLevels.isEmpty
            ? realmAttributes?.line(of: "acr.loa.map") : attributes?.line(of: "acr.loa.map"),
          enabled: client["enabled"]?.bool ?? true))
    }
    var users: [RealmSettings.User] = []
    for user in json["users"]?.array ?? [] {
      guard let name = user["username"]?.string else { continue }
      // Service accounts and disabled users cannot sign in through the form.
      if user["serviceAccountClientId"] != nil || name.hasPrefix("service-account-") { continue }
      if user["enabled"]?.bool == false { continue }
      // Keycloak's login form checks a password credential: a user imported without one
      // exists but cannot sign in.
      guard
        let credential = user["credentials"]?.array?.first(where: {
          $0["type"]?.string == "password"
        })
      else { continue }
      // A plain test password (`value`) is used as is; a hashed one (`secretData`) cannot be
      // reversed, so the mock IdP gives that user a test password of its own.
      let password = credential["value"]?.string
      users.append(
        RealmSettings.User(
          username: name, password: password, email: user["email"]?.string,
          firstName: user["firstName"]?.string, lastName: user["lastName"]?.string))
    }
    return RealmSettings(
      file: file, realm: json["realm"]?.string ?? "master",
      rememberMe: json["rememberMe"]?.bool ?? false, clients: clients, users: users)
  }
}
