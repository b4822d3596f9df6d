import Artifacts
import Foundation
import QualifyCore
import QualifyCrypto
import QualifyTestSupport
import Testing

/// The OTA key guards on the sample app's prod build, with its keys swapped one at a time.
@Suite struct OTAKeyGuardTests {
  let build: AppBuild

  init() throws {
    build = try #require(try AppRepository(directory: Fixtures.sampleApp).builds(for: .prod)[.ios])
  }

  private func rules(_ build: AppBuild) -> [String] {
    BuildGuards.findings(for: build).filter { $0.rule.hasPrefix("ota-") }.map(\.rule)
  }

  private func base64PublicHalf(of key: Key) throws -> String {
    Base64PEM.encode(try key.pkcs1PublicPEM())
  }

  @Test func theSampleAppsKeysAreOnePair() {
    #expect(build.frontend.otaPrivateKey != nil)
    #expect(rules(build).isEmpty)
  }

  /// Issue 26: the same key in a form the plugin cannot read, or a pair of another size, is
  /// named where capacitor.config bakes it.
  @Test func aKeyFormOrSizeTheDeviceCannotUseIsNamed() throws {
    let baked = try #require(build.capacitor?.updaterPublicKey)
    let pem = try #require(Base64PEM.decode(baked.value))
    for (key, words) in [
      (try Key.publicKey(pem: pem).spkiPublicPEM(), "BEGIN PUBLIC KEY PEM"),
      (try Key.generateRSA(bits: 3072).pkcs1PublicPEM(), "RSA-3072"),
    ] {
      var broken = build
      broken.capacitor?.updaterPublicKey = Sourced(key, at: baked.location)
      let finding = try #require(
        BuildGuards.findings(for: broken).first { $0.rule == "ota-key-form" })
      #expect(finding.message.contains(words), "\(finding.message)")
      #expect(finding.location == baked.location)
    }
  }

  /// Seed 000: OTA is driven from JS, `autoUpdate: false`. Left out, the plugin's default
  /// (true) makes it update itself from its update server: named at the setting, or at the
  /// file when the key is missing.
  @Test func anUpdaterInAutoModeIsNamed() throws {
    let setting = try #require(build.capacitor?.updaterAutoUpdate)
    #expect(setting.value == false)
    var on = build
    on.capacitor?.updaterAutoUpdate = Sourced(true, at: setting.location)
    let named = try #require(BuildGuards.findings(for: on).first { $0.rule == "ota-manual-mode" })
    #expect(named.location == setting.location)
    var unset = build
    unset.capacitor?.updaterAutoUpdate = nil
    let defaulted = try #require(
      BuildGuards.findings(for: unset).first { $0.rule == "ota-manual-mode" })
    #expect(defaulted.message.contains("default (true)"), "\(defaulted.message)")
    #expect(defaulted.location?.file == build.capacitor?.file)
    var offline = unset
    offline.features.ota.enabled = false
    #expect(!BuildGuards.findings(for: offline).contains { $0.rule == "ota-manual-mode" })
  }

  /// Every rule has an id of its own: a scenario's `expect no finding ID` names one rule.
  @Test func ruleIdsAreUnique() {
    let ids = BuildGuards.rules.map(\.id)
    #expect(
      Set(ids).count == ids.count,
      "\(Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys)")
  }

  @Test func aConfigKeyFromAnotherPairIsNamed() throws {
    var broken = build
    let other = try base64PublicHalf(of: try Key.generateRSA(bits: 1024))
    broken.capacitor?.updaterPublicKey = Sourced(
      other, at: build.capacitor?.updaterPublicKey?.location)
    let findings = BuildGuards.findings(for: broken).filter { $0.rule == "ota-key-pair" }
    // Both the web verifier's key and the signing key disagree with the config's.
    #expect(findings.count == 2)
    #expect(findings.contains { $0.value == "MOBILE_OTA_SIGNING_PUBLIC_KEY_B64" })
    #expect(findings.contains { $0.value == "CapacitorUpdater.publicKey" })
  }

  @Test func aWebKeyFromAnotherPairIsNamedEvenWithoutThePrivateKey() throws {
    var broken = build
    broken.frontend.otaPrivateKey = nil
    let other = try base64PublicHalf(of: try Key.generateRSA(bits: 1024))
    broken.frontend.otaPublicKey = Sourced(other, at: build.frontend.otaPublicKey?.location)
    let findings = BuildGuards.findings(for: broken).filter { $0.rule == "ota-key-pair" }
    #expect(findings.map(\.value) == ["MOBILE_OTA_SIGNING_PUBLIC_KEY_B64"])
    #expect(findings.first?.message.contains("different keys") == true)
  }

  @Test func aMissingKeyIsNamedOnlyWhileOTAIsOn() {
    var broken = build
    broken.frontend.otaPublicKey = nil
    #expect(rules(broken) == ["ota-public-key"])
    broken.features.ota.enabled = false
    #expect(rules(broken).isEmpty)
  }
}
