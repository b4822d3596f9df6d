import Foundation
import HTTP
import QualifyCore

/// The servers a multi-instance shell's world reaches (seed 004): Sovereign instances a user
/// may add, a site that is not an instance, and an outside site instances link to. Each
/// instance answers the public `GET /api/instance`, `GET /api/health`, and the admin-gated
/// `GET /api/admin/health` (403 without the admin key, which a shell never has), and serves
/// its pages with a same-origin link and an outside one.
public final class InstanceServers: Sendable {
  public struct Site: Sendable {
    /// How scenarios name it (`work`).
    public let name: String
    public let origin: Origin
    /// The instance's name in `/api/instance` (what the manager lists).
    public let title: String
    /// Whether it is a Sovereign instance at all.
    public let isInstance: Bool
    /// Another self-hosted product answering `/api/instance` in the same shape, with its own
    /// `product` (the server seed 004's `product === "sovereign"` test exists for).
    public var foreignProduct: String? = nil
  }

  /// The outside site instance pages link to.
  public static let outside = Site(
    name: "docs", origin: Origin(scheme: "https", host: "docs.example"), title: "Docs",
    isInstance: false)

  /// The world's sites when nothing is real.
  public static let catalogue: [Site] = [
    Site(
      name: "work", origin: Origin(scheme: "https", host: "work.example"), title: "Work",
      isInstance: true),
    Site(
      name: "home", origin: Origin(scheme: "https", host: "home.example"), title: "Home",
      isInstance: true),
    Site(
      name: "unlisted", origin: Origin(scheme: "https", host: "unlisted.example"),
      title: "Unlisted", isInstance: true),
    Site(
      name: "plain", origin: Origin(scheme: "http", host: "plain.example"), title: "Plain",
      isInstance: true),
    // A dev server on the LAN, reached over http at its IP address (seed 004's check added a
    // local dev server beside a public instance; seed 000: ATS exempts raw IP literals).
    Site(
      name: "dev", origin: Origin(scheme: "http", host: "192.168.1.20", port: 3000),
      title: "Sovereign", isInstance: true),
    Site(
      name: "blog", origin: Origin(scheme: "https", host: "blog.example"), title: "A blog",
      isInstance: false),
    Site(
      name: "files", origin: Origin(scheme: "https", host: "files.example"), title: "Files",
      isInstance: false, foreignProduct: "cloudfiles"),
    outside,
  ]

  /// Host names that need a certificate.
  public static var secureHosts: Set<String> {
    Set(catalogue.filter(\.origin.isSecure).map(\.origin.host))
  }

  /// This world's sites: the catalogue's, with the instances a stack file names real
  /// (`--stack`, `instances`) at their real origins.
  public let sites: [Site]

  public func site(named name: String) -> Site? {
    sites.first { $0.name == name.lowercased() }
  }

  /// Public authority (`host:port`) → loopback port.
  public var origins: [String: UInt16] { mounted.origins }
  private let mounted: MountedHosts

  public init(material: StackMaterial, sharing listeners: StackListeners? = nil) throws {
    let real = material.real?.instances ?? [:]
    sites = InstanceServers.catalogue.map { site in
      guard let origin = real[site.name] else { return site }
      return Site(
        name: site.name, origin: origin, title: site.title, isInstance: site.isInstance,
        foreignProduct: site.foreignProduct)
    }
    let mocked = sites.filter { real[$0.name] == nil }
    let secureHosts = VirtualHosts()
    let cleartextHosts = VirtualHosts()
    for site in mocked {
      let handler = InstanceSite(site: site)
      if site.origin.isSecure {
        secureHosts.add(site.origin.hostHeader, handler)
        cleartextHosts.add(site.origin.host, RedirectToHTTPS(origin: site.origin))
      } else {
        cleartextHosts.add(site.origin.hostHeader, handler)
      }
    }
    mounted = try MountedHosts(
      secure: secureHosts, cleartext: cleartextHosts, origins: mocked.map(\.origin),
      material: material, sharing: listeners)
  }

  public func stop() { mounted.stop() }

  deinit {
    stop()
  }
}

/// One site: a Sovereign instance's public API and pages, or a plain website.
struct InstanceSite: HTTPHandler {
  let site: InstanceServers.Site

  func handle(_ request: HTTPRequest) -> HTTPResponse {
    guard request.method == "GET" || request.method == "HEAD" else {
      return HTTPResponse.problem(405, "Method not allowed").with("Allow", "GET, HEAD")
    }
    if site.isInstance {
      switch request.path {
      case "/api/instance":
        return .json([
          "status": "ok", "product": "sovereign", "instanceName": site.title,
          "platformVersion": "1.4.0",
        ])
      case "/api/health":
        return .json(["status": "ok"])
      case "/api/admin/health":
        // Admin-key gated: a shell validating against it is refused (seed 004, task 20.1).
        return .json(["error": "admin key required"], status: 403)
      default:
        break
      }
    } else if let product = site.foreignProduct, request.path == "/api/instance" {
      return .json([
        "status": "ok", "product": product, "instanceName": site.title, "platformVersion": "29.0.1",
      ])
    } else if request.path.hasPrefix("/api/") {
      return .notFound
    }
    let title = HTMLText.escape(site.title)
    let outside = InstanceServers.outside.origin.url("/guide")
    return .html(
      """
      <!doctype html><html><head><meta charset="utf-8"><title>\(title)</title></head>
      <body><h1>\(title)</h1><p>\(HTMLText.escape(request.path))</p>
      <a id="same" href="/plugins/console">Console</a>
      <a id="outside" href="\(HTMLText.escape(outside))">Guide</a></body></html>
      """)
  }
}
