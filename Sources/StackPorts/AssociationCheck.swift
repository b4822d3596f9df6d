import Artifacts
import Foundation
import HTTP
import QualifyCore

/// `qualify links verify`: a real domain's association files fetched as the OS fetches them
/// (HTTPS, the exact `.well-known` paths, no redirect followed, at most 128 KiB) and judged
/// against the app's builds — the appID and paths for iOS, the package and the signing
/// certificate for Android (seed 003, 5.3). Release managers run it against production.
public enum AssociationCheck {
  /// One file's verdict.
  public struct Verdict: Sendable {
    public var platform: Platform
    public var url: String
    /// What the file must certify (`8XK2M4QZ7P.com.example.app`, `com.example.app` + SHA-256).
    public var subject: String
    /// Why the OS would not open the links in the app; empty when it would.
    public var problems: [String]
  }

  /// The most a file may weigh (Apple stops at 128 KB).
  public static let maximumBytes = 128 * 1024

  /// Fetches and judges the files of `domain` for each build.
  /// - Throws: `InputError` naming the URL when the domain cannot be reached at all.
  public static func verify(
    domain: Origin, builds: [AppBuild], client: HTTPClient
  ) throws -> [Verdict] {
    var out: [Verdict] = []
    for build in builds.sorted(by: { $0.platform.rawValue > $1.platform.rawValue }) {
      guard let hybrid = build.hybrid else { continue }
      let path = build.platform == .ios ? AssociationFiles.applePath : AssociationFiles.androidPath
      let url = domain.url(path)
      let exchange = client.send(ClientRequest(url: url, maxResponseBytes: maximumBytes))
      if let error = exchange.error, exchange.response == nil, error.kind != .tooLarge {
        throw InputError(
          "\(url) cannot be reached: \(error)",
          hint: "check the domain, or pass --cacert / --connect-to for a test deployment")
      }
      var problems: [String] = []
      let subject: String
      let host = domain.host.lowercased()
      switch build.platform {
      case .ios:
        let appID = "\(hybrid.teamId?.value ?? "?").\(build.appId.value)"
        subject = appID
        if !hybrid.associatedDomains.contains(where: {
          $0.value.lowercased().split(separator: "?").first.map(String.init) == "applinks:\(host)"
        }) {
          problems.append(
            "the iOS build does not claim applinks:\(host) (\(hybrid.entitlementsFile ?? "no entitlements file")): iOS never asks this domain"
          )
        }
      case .android:
        let fingerprint = hybrid.signingCertificateSHA256?.value ?? "?"
        subject = "\(build.appId.value) signed with \(fingerprint)"
        if !hybrid.linkFilters.contains(where: { $0.autoVerify && $0.hosts.contains(host) }) {
          problems.append(
            "no intent filter of the Android build verifies \(host) (android:autoVerify): Android never asks this domain"
          )
        }
      }
      if let error = exchange.error, error.kind == .tooLarge {
        problems.append(
          "\(url) is larger than \(maximumBytes / 1024) KiB: the OS does not read it")
      }
      if let response = exchange.response {
        if response.status != 200 {
          let location = response.headers["Location"].map { " to \($0)" } ?? ""
          problems.append(
            (300..<400).contains(response.status)
              ? "\(url) answers \(response.status)\(location): the OS follows no redirect"
              : "\(url) answers \(response.status)")
        } else if let error = exchange.error {
          problems.append("\(url): \(error)")
        } else {
          let type = (response.headers["Content-Type"] ?? "").lowercased()
          if build.platform == .android && !type.hasPrefix("application/json") {
            problems.append(
              "\(url) is served as \(type.isEmpty ? "no content type" : type), not application/json"
            )
          }
          let text = response.bodyText
          let found =
            build.platform == .ios
            ? AssociationFiles.appleProblems(
              text, appID: "\(hybrid.teamId?.value ?? "").\(build.appId.value)",
              paths: hybrid.links)
            : AssociationFiles.androidProblems(
              text, package: build.appId.value,
              fingerprint: hybrid.signingCertificateSHA256?.value ?? "",
              debugFingerprint: hybrid.debugCertificateSHA256)
          problems += found.map(\.description)
        }
      }
      out.append(Verdict(platform: build.platform, url: url, subject: subject, problems: problems))
    }
    return out
  }
}
