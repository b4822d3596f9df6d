import Artifacts
import Devices
import Foundation
import MockStack
import QualifyCore
import ResultModel
import StackPorts

extension Runner {
  /// Checks, before anything runs, that the app has the test users the scenarios name: the
  /// profile's `testUsers` exist at the realm export, and there are as many as the roles the
  /// scenarios use.
  /// - Throws: `InputError` naming `qualify.json` or the realm export.
  public static func checkTestUsers(_ scenarios: [Scenario], builds: [Platform: AppBuild]) throws {
    let needed =
      scenarios.flatMap(\.users).compactMap { AppProfile.userRoles.firstIndex(of: $0) }.max()
      .map { $0 + 1 } ?? 0
    guard needed > 0, let build = builds.values.first, let realm = build.realm,
      !realm.users.isEmpty
    else { return }
    let names = realm.users.map(\.username)
    for user in build.testUsers
    where !realm.users.contains(where: { $0.username == user || $0.email == user }) {
      throw InputError(
        "qualify.json testUsers names \(user), who is not a user of the realm export \(realm.file)",
        hint: "its users who can sign in: \(names.joined(separator: ", "))")
    }
    let available = build.testUsers.isEmpty ? realm.users.count : build.testUsers.count
    if available < needed {
      let roles = AppProfile.userRoles.prefix(needed).joined(separator: ", ")
      throw InputError(
        "the scenarios need \(needed) test users (\(roles)), but \(build.testUsers.isEmpty ? "the realm export \(realm.file) has \(available) who can sign in" : "qualify.json testUsers names \(available)") (\(names.joined(separator: ", ")))",
        hint:
          "add users to the realm export (service accounts, disabled users and users without a password credential do not count), or name them in qualify.json testUsers"
      )
    }
  }

  /// Secrets of the app's configuration that must never be shown.
  static func registerSecrets(of build: AppBuild, with redactor: Redactor) {
    for file in build.backend?.env.files ?? [] {
      for entry in file.entries where SecretShape.isSecretName(entry.key) {
        for secret in secretParts(of: entry.value) { redactor.register(secret) }
      }
    }
    if let key = build.frontend.otaPrivateKey { redactor.register(key.value) }
    for client in build.realm?.clients ?? [] {
      if let secret = client.secret { redactor.register(secret) }
    }
    for user in build.realm?.users ?? [] {
      if let password = user.password { redactor.register(password) }
    }
  }

  /// What of an env value is secret: a service account's JSON holds its key and key id among
  /// public names (its project, its address), which stay readable; a PEM written on one line
  /// with `\n` escapes is its lines.
  static func secretParts(of value: String) -> [String] {
    if let data = value.data(using: .utf8),
      let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    {
      return object.filter { $0.key.lowercased().contains("private_key") }.values
        .compactMap { $0 as? String }.flatMap(secretParts)
    }
    return [value.replacingOccurrences(of: "\\n", with: "\n")]
  }
}
