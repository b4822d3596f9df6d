import Foundation
import QualifyCore
import Testing

@testable import Artifacts

/// Keycloak realm exports in the shapes Keycloak writes them.
@Suite struct RealmReaderTests {
  static let export = """
    [
      { "realm": "master", "enabled": true },
      {
        "realm": "messages",
        "rememberMe": true,
        "attributes": { "acr.loa.map": "{\\"eidas1\\":1}" },
        "clients": [
          { "clientId": "account", "redirectUris": ["/realms/messages/account/*"],
            "attributes": { "post.logout.redirect.uris": "+" } },
          { "clientId": "messages", "secret": "s3cret",
            "redirectUris": ["http://localhost:8900/*", "http://localhost:8901/*"],
            "attributes": { "post.logout.redirect.uris": "http://localhost:8900/*##http://localhost:8901/*" } },
          { "clientId": "rest-api", "attributes": { "acr.loa.map": "{\\"eidas2\\":2}" } }
        ],
        "users": [
          { "username": "service-account-rest-api", "enabled": true, "serviceAccountClientId": "rest-api" },
          { "username": "user1@example.local", "email": "user1@example.local", "enabled": true,
            "credentials": [ { "type": "password", "secretData": "{\\"value\\":\\"aGFzaA==\\"}", "credentialData": "{}" } ] },
          { "username": "off@example.local", "enabled": false },
          { "username": "nopassword@example.local", "enabled": true, "credential": [ { "type": "password", "value": "typo" } ] },
          { "username": "otp-only@example.local", "enabled": true, "credentials": [ { "type": "otp", "secretData": "{}" } ] },
          { "username": "user2@example.local", "enabled": true,
            "credentials": [ { "type": "password", "value": "plain-test-password" } ] }
        ]
      }
    ]
    """

  @Test func theAppsRealmIsChosenByItsClient() throws {
    let realm = try RealmReader.read(
      text: RealmReaderTests.export, file: "realm.json", clientID: "messages")
    #expect(realm.realm == "messages")
    #expect(realm.rememberMe)
    let none = try RealmReader.read(
      text: RealmReaderTests.export, file: "realm.json", clientID: nil)
    #expect(none.realm == "messages")
  }

  @Test func usersWhoCanSignInKeepTheirOrderAndHashesAreNotPasswords() throws {
    let realm = try RealmReader.read(
      text: RealmReaderTests.export, file: "realm.json", clientID: "messages")
    #expect(realm.users.map(\.username) == ["user1@example.local", "user2@example.local"])
    #expect(realm.users[0].password == nil)
    #expect(realm.users[1].password == "plain-test-password")
  }

  @Test func postLogoutURIsSplitOnKeycloaksSeparatorAndPlusMeansTheRedirectURIs() throws {
    let realm = try RealmReader.read(
      text: RealmReaderTests.export, file: "realm.json", clientID: "messages")
    #expect(
      realm.client("messages")?.postLogoutRedirectURIs == [
        "http://localhost:8900/*", "http://localhost:8901/*",
      ])
    #expect(realm.client("account")?.postLogoutRedirectURIs == ["/realms/messages/account/*"])
  }

  @Test func aClientWithoutItsOwnACRMapUsesTheRealms() throws {
    let realm = try RealmReader.read(
      text: RealmReaderTests.export, file: "realm.json", clientID: "messages")
    #expect(realm.client("messages")?.acrLevels == ["eidas1": 1])
    #expect(realm.client("rest-api")?.acrLevels == ["eidas2": 2])
  }

  @Test func aSingleRealmObjectStillReads() throws {
    let realm = try RealmReader.read(
      text: #"{"realm":"solo","clients":[{"clientId":"app"}],"users":[]}"#, file: "r.json",
      clientID: "app")
    #expect(realm.realm == "solo")
    #expect(realm.client("app") != nil)
  }

  @Test func aMalformedACRMapNamesTheLine() {
    #expect {
      try RealmReader.read(
        text:
          "{\"realm\":\"r\",\n\"clients\":[{\"clientId\":\"app\",\n\"attributes\":{\n\"acr.loa.map\":\"not json\"}}]}",
        file: "r.json", clientID: "app")
    } throws: { error in
      (error as? Diagnostic)?.location?.line == 4
    }
  }
}
