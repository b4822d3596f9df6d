import Foundation
import QualifyCore

/// The navigation policy's rule run on URLs (`navigation-policy`): the URLs a release's
/// WebView must never render, `classifyNavigation` evaluated on them, and its early refusals
/// (credentials, length) judged as written.
extension BuildGuards {
  /// URLs that must never render in the WebView, built on the compiled origin: look-alike
  /// hosts, another origin carrying it in its path or query, credentials, another scheme or
  /// port on its host, local content that reports its origin (`blob:`), and a URL past the
  /// length limit.
  static func foreignURLs(_ origin: String, lengthLimit: Int?) -> [(url: String, what: String)] {
    guard let parts = URLComponents(string: origin), let scheme = parts.scheme,
      let host = parts.host
    else { return [] }
    let port = parts.port.map { $0 + 1 } ?? 8443
    var urls: [(String, String)] = [
      ("\(scheme)://\(host).evil.example/", "a host that starts with the product's"),
      ("\(scheme)://evil-\(host)/", "a host that ends with the product's"),
      ("\(scheme)://evil.example/\(host)/", "another origin with the product's host in its path"),
      (
        "\(scheme)://evil.example/?next=\(origin)", "another origin with the product's in its query"
      ),
      ("\(scheme)://user@\(host)/", "the product's origin with a user name"),
      ("\(scheme)://:secret@\(host)/", "the product's origin with a password"),
      (
        "\(scheme == "https" ? "http" : "https")://\(host)/", "the product's host on another scheme"
      ),
      ("\(scheme)://\(host):\(port)/", "the product's host on another port"),
      ("blob:\(origin)/0d9e", "local content reporting the product's origin"),
      ("data:text/html,<p>x</p>", "inline content"),
    ]
    if let lengthLimit {
      let padding = String(repeating: "a", count: max(0, lengthLimit + 1 - origin.count - 1))
      urls.append(("\(origin)/\(padding)", "a URL one character past the length limit"))
    }
    return urls
  }

  /// classifyNavigation run on the compiled origin and on `foreignURLs`: the origin must load,
  /// none of the others. Nil when qualify cannot run it on the compiled origin; `complete`
  /// when it answered every URL.
  static func runNavigation(_ navigation: BridgeNavigationCode, origin: String) -> (
    hits: [GuardHit], complete: Bool
  )? {
    guard let function = navigation.function,
      let loads = navigation.loadsOn.flatMap({ BridgeNavigationCode.test($0.value) })?.literal
    else { return nil }
    let config = ScriptFunction.Value.object(["webOrigin": .string(origin)])
    func decide(_ url: String) -> String? {
      guard case .string(let decision)? = function.value.call([.string(url), config]) else {
        return nil
      }
      return decision
    }
    guard let own = decide(origin + "/") else { return nil }
    guard own == loads else {
      let hit = GuardHit(
        "classifyNavigation, run on the compiled origin \(origin)/, answers \"\(own)\", not \"\(loads)\": the product's own pages do not load in the WebView",
        at: function.location, value: own)
      return ([hit], true)
    }
    var hits: [GuardHit] = []
    var complete = true
    for (url, what) in foreignURLs(origin, lengthLimit: navigation.lengthLimit?.value) {
      guard let decision = decide(url) else {
        complete = false
        continue
      }
      guard decision == loads else { continue }
      let shown = url.count > 80 ? String(url.prefix(60)) + "…" : url
      hits.append(
        GuardHit(
          "classifyNavigation, run on \(what) (\(shown)), answers \"\(loads)\": it loads in the WebView",
          at: function.location, value: url))
    }
    return (hits, complete)
  }

  /// URLs that carry credentials: `origin` drops them, so each must be refused before the
  /// origin comparison (seed 001's real originPolicy.ts refuses `username || password`).
  static let credentialEdges: [(label: String, username: String, password: String)] = [
    ("https://user@openmapx.com/ (a user name alone)", "user", ""),
    ("https://:secret@openmapx.com/ (a password alone)", "", "secret"),
    ("https://user:secret@openmapx.com/", "user", "secret"),
  ]

  /// classifyNavigation's early refusals, evaluated at their edges: every credential form is
  /// refused, and a URL exactly at the length limit is kept while one character more is not.
  static func earlyRefusalHits(_ navigation: BridgeNavigationCode) -> [GuardHit] {
    var hits: [GuardHit] = []
    let target = navigation.targetName
    if let refusal = navigation.credentialRefusal {
      func refuses(_ username: String, _ password: String) -> Bool? {
        guard case .read(let condition) = refusal.value else { return nil }
        return condition.evaluate { path in
          // Only the URL being judged: a test on the product's URL refuses nothing.
          guard path.count == 2, target.map({ path[0] == $0 }) ?? true else { return nil }
          switch path[1] {
          case "username": return .string(username)
          case "password": return .string(password)
          default: return nil
          }
        }
      }
      let clean = refuses("", "")
      let edges = credentialEdges.map { ($0.label, refuses($0.username, $0.password)) }
      if case .unverified(let reason) = refusal.value {
        hits.append(
          GuardHit(
            "classifyNavigation's refusal of credentials cannot be read (\(reason)): whether https://user@openmapx.com/ stays out of the WebView is not known",
            at: refusal.location, value: "username", unverified: true))
      } else if clean == nil || edges.contains(where: { $0.1 == nil }) {
        hits.append(
          GuardHit(
            "classifyNavigation's refusal of credentials tests something qualify does not evaluate\(target.map { " on \($0)" } ?? ""): whether https://user@openmapx.com/ stays out of the WebView is not known",
            at: refusal.location, value: "username", unverified: true))
      } else if clean == true {
        hits.append(
          GuardHit(
            "classifyNavigation refuses a URL without credentials (\(refusal.value.value.map { "\($0)" } ?? "")): every navigation is refused",
            at: refusal.location, value: refusal.value.value.map { "\($0)" }))
      } else if case let kept = edges.filter({ $0.1 == false }).map(\.0), !kept.isEmpty {
        let condition = refusal.value.value.map { "\($0)" } ?? ""
        hits.append(
          GuardHit(
            "classifyNavigation refuses credentials only when \(condition): \(kept.joined(separator: ", ")) \(kept.count == 1 ? "passes" : "pass"), and its origin compares equal to the product's once the credentials are dropped",
            at: refusal.location, value: condition))
      } else if let allow = navigation.sameOrigin?.location, let at = refusal.location,
        allow.file == at.file, allow.line < at.line
      {
        hits.append(
          GuardHit(
            "classifyNavigation refuses credentials only after it answers allow-in-webview on the origin (\(allow)): a URL with credentials on the product's origin is kept before the test runs",
            at: at, value: "username"))
      }
    } else if navigation.decisions != nil, navigation.sameOrigin?.value.contains(".origin") == true
    {
      if navigation.mentionsCredentials {
        hits.append(
          GuardHit(
            "classifyNavigation mentions credentials but not in an `if (…) return \"reject\"` qualify reads: whether https://user@openmapx.com/ stays out of the WebView is not known",
            at: navigation.decisions?.location, value: "username", unverified: true))
      } else {
        hits.append(
          GuardHit(
            "classifyNavigation compares origins without refusing credentials first: origin drops them, so https://user:secret@openmapx.com/ loads in the WebView",
            at: navigation.decisions?.location, value: "username"))
      }
    }
    if let refusal = navigation.lengthRefusal {
      hits += lengthRefusalHits(refusal, navigation)
    }
    return hits
  }

  /// The length bound at its edge: a URL of exactly the limit is kept, one more is refused.
  static func lengthRefusalHits(
    _ refusal: Sourced<ReadDecision<ScriptCondition>>, _ navigation: BridgeNavigationCode
  ) -> [GuardHit] {
    var hits: [GuardHit] = []
    func refuses(_ length: Int) -> Bool? {
      guard case .read(let condition) = refusal.value, let limit = navigation.lengthLimit else {
        return nil
      }
      return condition.evaluate { path in
        if path.count == 1, path[0].first?.isUppercase == true {
          return .number(Double(limit.value))
        }
        // The raw URL itself (`typeof rawUrl`, `!rawUrl`) and its length.
        guard path[0] == (navigation.rawName ?? path[0]) else { return nil }
        if path.count == 1 { return .string(String(repeating: "a", count: length)) }
        return path.count == 2 && path[1] == "length" ? .number(Double(length)) : nil
      }
    }
    guard let limit = navigation.lengthLimit, let atLimit = refuses(limit.value),
      let above = refuses(limit.value + 1)
    else {
      hits.append(
        GuardHit(
          "classifyNavigation's length bound cannot be read\(refusal.value.problem.map { " (\($0))" } ?? " (its limit is not a constant of literals, or the test reads something else)"): where it refuses a long URL is not known",
          at: refusal.location, value: "length", unverified: true))
      return hits
    }
    if atLimit || !above {
      let condition = refusal.value.value.map { "\($0)" } ?? ""
      hits.append(
        GuardHit(
          "classifyNavigation \(atLimit ? "refuses" : "keeps") a URL of exactly \(limit.value) characters and \(above ? "refuses" : "keeps") one of \(limit.value + 1) (\(condition)): the limit (\(limit.location?.description ?? "its constant")) is the longest URL kept",
          at: refusal.location, value: condition))
    }
    return hits
  }
}
