import Foundation

/// `new URL(text)` as the WHATWG URL parser answers it for the URLs a navigation policy
/// judges: an absolute URL with a scheme; nil where the parser throws.
enum ScriptURL {
  typealias Value = ScriptFunction.Value

  static let special: [String: Int?] = [
    "http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21, "file": nil,
  ]

  static func parse(_ text: String) -> Value? {
    let trimmed = text.trimmingCharacters(in: CharacterSet(charactersIn: " \t\n\r\u{0}"))
    guard let colon = trimmed.firstIndex(of: ":") else { return nil }
    let scheme = trimmed[..<colon].lowercased()
    guard let first = scheme.unicodeScalars.first, CharacterSet.letters.contains(first),
      scheme.unicodeScalars.allSatisfy({
        CharacterSet.alphanumerics.contains($0) || "+-.".unicodeScalars.contains($0)
      })
    else { return nil }
    let rest = String(trimmed[trimmed.index(after: colon)...])
    let isSpecial = special[scheme] != nil
    // A non-special scheme followed by `//` has an authority too (`openmapx://auth/callback`:
    // host `auth`, path `/callback`), its host opaque: kept as written, no default port.
    guard isSpecial || rest.hasPrefix("//") else {
      // An opaque URL (`mailto:`, `blob:`, `javascript:`): its path is the rest; a blob's
      // origin is its inner URL's.
      var fields = base(scheme: scheme)
      fields["pathname"] = .string(rest)
      fields["href"] = .string(scheme + ":" + rest)
      if scheme == "blob", case .object(let inner)? = parse(rest),
        case .string(let innerProtocol)? = inner["protocol"],
        ["http:", "https:"].contains(innerProtocol)
      {
        fields["origin"] = inner["origin"]
      }
      return .object(fields)
    }
    // Special schemes: backslashes are slashes, and the authority follows any run of them.
    let normalized = isSpecial ? rest.replacingOccurrences(of: "\\", with: "/") : rest
    let afterSlashes = isSpecial ? normalized.drop { $0 == "/" } : normalized.dropFirst(2)
    let authorityEnd = afterSlashes.firstIndex { "/?#".contains($0) } ?? afterSlashes.endIndex
    let authority = String(afterSlashes[..<authorityEnd])
    let tail = String(afterSlashes[authorityEnd...])
    var userinfo = ""
    var hostPort = authority
    if let at = authority.lastIndex(of: "@") {
      userinfo = String(authority[..<at])
      hostPort = String(authority[authority.index(after: at)...])
    }
    var host = hostPort
    var port = ""
    if let lastColon = hostPort.lastIndex(of: ":"), !hostPort.hasSuffix("]"),
      !hostPort[..<lastColon].contains(":") || hostPort.hasPrefix("[")
    {
      host = String(hostPort[..<lastColon])
      port = String(hostPort[hostPort.index(after: lastColon)...])
    }
    if isSpecial { host = (host.removingPercentEncoding ?? host).lowercased() }
    guard !host.isEmpty || scheme == "file" || !isSpecial,
      !host.contains(where: { " #%/:<>?@[\\]^|".contains($0) }) || host.hasPrefix("[")
    else { return nil }
    if !port.isEmpty {
      guard port.allSatisfy(\.isNumber), let number = Int(port), number <= 65535 else {
        return nil
      }
      port = number == special[scheme] ?? nil ? "" : String(number)
    }
    let (username, password): (String, String) = {
      guard !userinfo.isEmpty else { return ("", "") }
      guard let split = userinfo.firstIndex(of: ":") else { return (userinfo, "") }
      return (
        String(userinfo[..<split]), String(userinfo[userinfo.index(after: split)...])
      )
    }()
    let queryStart = tail.firstIndex { "?#".contains($0) } ?? tail.endIndex
    let path = String(tail[..<queryStart])
    var fields = base(scheme: scheme)
    let hostField = port.isEmpty ? host : host + ":" + port
    fields["username"] = .string(username)
    fields["password"] = .string(password)
    fields["hostname"] = .string(host)
    fields["host"] = .string(hostField)
    fields["port"] = .string(port)
    fields["pathname"] = .string(path.isEmpty ? "/" : path)
    fields["origin"] = .string(
      scheme == "file" || !isSpecial ? "null" : scheme + "://" + hostField)
    let rawQuery = tail[queryStart...]
    let hashStart = rawQuery.firstIndex(of: "#") ?? rawQuery.endIndex
    let query = rawQuery.hasPrefix("?") ? String(rawQuery[rawQuery.startIndex..<hashStart]) : ""
    let fragment = String(rawQuery[hashStart...])
    fields["search"] = .string(query.count > 1 ? query : "")
    fields["hash"] = .string(fragment.count > 1 ? fragment : "")
    fields["searchParams"] = .object([searchKey: .string(String(query.dropFirst()))])
    let credentials =
      username.isEmpty && password.isEmpty
      ? "" : username + (password.isEmpty ? "" : ":" + password) + "@"
    fields["href"] = .string(
      scheme + "://" + credentials + hostField + (path.isEmpty ? "/" : path)
        + String(tail[queryStart...]))
    return .object(fields)
  }

  /// Where a `searchParams` object keeps its query (no script can name this key).
  static let searchKey = " search"

  /// `URLSearchParams.get(name)`: the first value of `name` in a query, form-decoded; null
  /// when absent.
  static func parameter(_ name: String, in query: String) -> Value {
    for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
      }
      if decode(parts[0]) == name { return .string(parts.count > 1 ? decode(parts[1]) : "") }
    }
    return .null
  }

  static func base(scheme: String) -> [String: Value] {
    [
      "protocol": .string(scheme + ":"), "username": .string(""), "password": .string(""),
      "hostname": .string(""), "host": .string(""), "port": .string(""),
      "origin": .string("null"), "search": .string(""), "hash": .string(""),
    ]
  }
}
