import Foundation
import QualifyCore

/// Reads the parts of a Keycloak realm export the mock IdP needs.
enum RealmReader {
  static func read(text: String, file: String) throws -> RealmSettings {
    let json = try JSONDocument(text: text, file: file).value
    var clients: [RealmSettings.Client] = []
    for client in json["clients"]?.array ?? [] {
      guard let id = client["clientId"]?.string else { continue }
      var levels: [String: Int] = [:]
      let attributes = client["attributes"]
      if let raw = attributes?["acr.loa.map"]?.string, !raw.isEmpty {
        // Keycloak stores the map as a JSON object serialised into a string attribute.
        guard let object = try? JSONDocument(text: raw, file: file).value else {
          throw Diagnostic.error(
            at: FileLocation(
              file: file, line: attributes?.line(of: "acr.loa.map") ?? 1, column: 1),
            "acr.loa.map of client \"\(id)\" is not a JSON object",
            hint: "Keycloak expects a string such as \"{\\\"eidas1\\\":1}\"")
        }
        for member in object.members ?? [] {
          if let level = member.value.number {
            levels[member.key] = Int(level)
          } else if let level = member.value.string.flatMap(Int.init) {
            levels[member.key] = level
          }
        }
      }
      let postLogout =
        attributes?["post.logout.redirect.uris"]?.string?
        .split(separator: "#").map(String.init) ?? []
      clients.append(
        RealmSettings.Client(
          clientId: id, secret: client["secret"]?.string,
          redirectURIs: client["redirectUris"]?.array?.compactMap(\.string) ?? [],
          postLogoutRedirectURIs: postLogout, acrLevels: levels,
          acrMapLine: attributes?.line(of: "acr.loa.map")))
    }
    var users: [RealmSettings.User] = []
    for user in json["users"]?.array ?? [] {
      guard let name = user["username"]?.string else { continue }
      let password =
        user["credentials"]?.array?.first { $0["type"]?.string == "password" }?["value"]?.string
        ?? ""
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
