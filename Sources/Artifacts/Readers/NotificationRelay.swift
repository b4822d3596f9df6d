import Foundation
import QualifyCore

/// How a Swift shell hands an event from its app delegate to the view controller that acts on
/// it: `NotificationCenter.default.post(name: Notification.Name("X"), …)` on one side,
/// `addObserver(forName: Notification.Name("X"), …) { … }` on the other. A name misspelt on one
/// side, a post removed, an observer whose closure no longer does the work: each compiles, and
/// the event is silently dropped (issue 23: the name a handler is registered under and the
/// name it answers).
struct NotificationRelay {
  struct Post {
    var name: String
    var location: FileLocation
  }

  struct Observer {
    var name: String
    var location: FileLocation
    /// The closure's text.
    var body: String
  }

  var posts: [Post] = []
  var observers: [Observer] = []

  init(_ search: CodeSearch) {
    let post = try? NSRegularExpression(
      pattern:
        #"NotificationCenter\.default\.post\(\s*name:\s*(?:Notification\.Name|NSNotification\.Name)?\(?(?:rawValue:\s*)?"([^"]+)""#
    )
    let observe = try? NSRegularExpression(
      pattern:
        #"addObserver\(\s*forName:\s*(?:Notification\.Name|NSNotification\.Name)?\(?(?:rawValue:\s*)?"([^"]+)""#
    )
    for (file, lines) in search.files {
      for (position, entry) in lines.enumerated() {
        let (index, line) = entry
        let range = NSRange(line.startIndex..., in: line)
        let at = FileLocation(file: file, line: index + 1, column: 1)
        if let match = post?.firstMatch(in: line, range: range),
          let name = Range(match.range(at: 1), in: line)
        {
          posts.append(Post(name: String(line[name]), location: at))
        }
        if let match = observe?.firstMatch(in: line, range: range),
          let name = Range(match.range(at: 1), in: line)
        {
          observers.append(
            Observer(
              name: String(line[name]), location: at,
              body: Self.closure(from: position, in: lines)))
        }
      }
    }
  }

  /// The trailing closure that starts on line `position`, to its closing brace.
  static func closure(from position: Int, in lines: [(Int, String)]) -> String {
    NavigationPolicyReader.block(from: position, in: lines).map(\.1).joined(separator: "\n")
  }

  /// Whether an event posted near `origin` reaches an observer that does `work`: nil when the
  /// code near `origin` posts nothing by a literal name, or when the observer hands the event
  /// on to code this reader does not follow (a method call). False when the name is observed
  /// nowhere (and `origin`'s own file does not do `work`), or when the observer's closure does
  /// nothing with it.
  func delivers(
    postedAfter origin: FileLocation, within lines: Int = 12, doing work: String,
    doneAtOrigin: Bool = false
  ) -> Sourced<Bool>? {
    let nearby = posts.filter {
      $0.location.file == origin.file && $0.location.line >= origin.line
        && $0.location.line <= origin.line + lines
    }
    guard let post = nearby.first else { return nil }
    let listening = observers.filter { $0.name == post.name }
    guard !listening.isEmpty else {
      if doneAtOrigin { return nil }
      let heard = Set(observers.map(\.name)).sorted()
      return Sourced(
        false, at: post.location,
        derivation: [
          "\(post.name) is posted here and observed nowhere"
            + (heard.isEmpty ? "" : " (observed: \(heard.joined(separator: ", ")))")
        ])
    }
    if let doer = listening.first(where: { $0.body.contains(work) }) {
      return Sourced(
        true, at: doer.location,
        derivation: ["\(post.name) posted at \(post.location), observed here"])
    }
    // A closure that calls on (`self?.open(url)`) may do the work elsewhere; one that calls
    // nothing and assigns nothing drops the event.
    if listening.contains(where: { Self.doesSomething($0.body) }) { return nil }
    return Sourced(
      false, at: listening[0].location,
      derivation: ["the observer of \(post.name) does nothing with it (no \(work))"])
  }

  /// Whether a closure's statements (after its `in`) call or assign anything.
  static func doesSomething(_ body: String) -> Bool {
    guard let open = body.firstIndex(of: "{") else { return false }
    var inner = String(body[body.index(after: open)...])
    if let range = inner.range(of: " in") { inner = String(inner[range.upperBound...]) }
    inner = inner.replacingOccurrences(of: "guard let self else { return }", with: "")
    return inner.contains("(") || inner.contains(" = ")
  }

  /// Whether the lines after `origin` pass a `url` on (`open(url)`, `object: url`, `load(url)`).
  func usesURL(after origin: FileLocation, in search: CodeSearch, within lines: Int = 8) -> Bool {
    guard let (_, code) = search.files.first(where: { $0.file == origin.file }) else {
      return true
    }
    let pattern = try? NSRegularExpression(pattern: #"(\(|:\s*|,\s*)url\b"#)
    return code.contains { index, line in
      index + 1 > origin.line && index + 1 <= origin.line + lines
        && pattern?.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil
    }
  }
}
