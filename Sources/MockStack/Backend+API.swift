import Foundation
import HTTP
import QualifyCore
import QualifyCrypto

/// The protected API the app's native stack calls, behind Django's session authentication
/// and CSRF protection (`CSRF_USE_SESSIONS`; on HTTPS, a trusted `Origin` — seed 000,
/// *Networking & session* and *Production hardening*).
extension Backend {
  /// Runs `body` for an authenticated session; unsafe methods also pass the CSRF checks.
  func protected(
    _ request: HTTPRequest, unsafe: Bool = false, _ body: (HTTPRequest, Session) -> HTTPResponse
  )
    -> HTTPResponse
  {
    guard let session = session(of: request), session.user != nil else {
      return .problem(401, "Authentication credentials were not provided.")
    }
    if unsafe, let refusal = csrfRefusal(request, session) {
      event("CSRF refused \(request.method) \(request.path): \(refusal)")
      return .problem(403, "CSRF Failed: \(refusal)")
    }
    return body(request, session)
  }

  func csrfRefusal(_ request: HTTPRequest, _ session: Session) -> String? {
    if request.isSecure && !context.behaviours.backendSkipsOriginCheck {
      let trusted = Set(settings.csrfTrustedOrigins.map { $0.lowercased() } + [origin.description])
      if let requestOrigin = request.headers["Origin"] {
        guard trusts(requestOrigin.lowercased(), trusted) else {
          return "Origin checking failed - \(requestOrigin) does not match any trusted origins."
        }
      } else if let referer = request.headers["Referer"] {
        guard let refererOrigin = Origin(url: referer), trusted.contains(refererOrigin.description)
        else {
          return "Referer checking failed - \(referer) does not match any trusted origins."
        }
      } else {
        return "Referer checking failed - no Referer."
      }
    }
    if !context.behaviours.backendSkipsCSRFToken {
      guard let token = request.headers["X-CSRFToken"] else { return "CSRF token missing." }
      guard Digest.constantTimeEqual(Array(token.utf8), Array(session.csrfSecret.utf8)) else {
        return "CSRF token incorrect."
      }
    }
    return nil
  }

  /// Django compares the whole origin (scheme, host and port) with each trusted one; the
  /// mutations are the look-alike matches a hand-written check gets wrong.
  private func trusts(_ requestOrigin: String, _ trusted: Set<String>) -> Bool {
    let behaviours = context.behaviours
    if behaviours.backendTrustsAnyOrigin { return true }
    if behaviours.backendOriginComparesHost || behaviours.backendOriginSuffixMatch {
      guard let host = Origin(url: requestOrigin)?.host else { return false }
      return trusted.contains { entry in
        guard let trustedHost = Origin(url: entry)?.host else { return false }
        return behaviours.backendOriginSuffixMatch
          ? host.hasSuffix(trustedHost) : host == trustedHost
      }
    }
    return trusted.contains(requestOrigin)
  }

  func me(_ request: HTTPRequest, _ session: Session) -> HTTPResponse {
    .json([
      "id": session.user ?? "", "email": "\(session.user ?? "")@\(origin.host)",
      "full_name": session.user ?? "",
    ])
  }

  func threads(_ request: HTTPRequest, _ session: Session) -> HTTPResponse {
    .json([
      "count": 2,
      "results": [
        ["id": "thread-1", "subject": "Quarterly report", "has_attachments": true, "unread": true],
        [
          "id": "thread-2", "subject": "Lunch on Friday", "has_attachments": false, "unread": false,
        ],
      ],
    ])
  }

  /// `GET /api/v1.0/messages/?thread_id=ID`: the thread's messages, with `htmlBody` and
  /// `textBody` as lists of parts, as La Suite Messages' serializer names them.
  func messages(_ request: HTTPRequest, _ session: Session) -> HTTPResponse {
    let thread = request.query("thread_id") ?? ""
    let results = lock.withLock { threadMessages[thread] ?? [] }
    return .json(["count": results.count, "results": results])
  }

  /// Puts a message in `thread` (what delivery does in the product): the render checks' body.
  public func hold(message html: String, text: String, in thread: String, subject: String) {
    lock.withLock {
      let id = "\(thread)-m\((threadMessages[thread]?.count ?? 0) + 1)"
      threadMessages[thread, default: []].append([
        "id": id, "thread_id": thread, "subject": subject, "is_draft": false,
        "htmlBody": html.isEmpty ? [] : [["partId": "1", "type": "text/html", "content": html]],
        "textBody": [["partId": "2", "type": "text/plain", "content": text]],
        "attachments": [] as [Any],
      ])
    }
    event("message \(subject) held in \(thread)")
  }

  /// `GET /api/v1.0/blob/<id>/download/`: an attachment, only with the session.
  func download(_ request: HTTPRequest, _ session: Session) -> HTTPResponse {
    let parts = request.path.split(separator: "/")
    guard parts.count >= 4, parts.last == "download" else { return .notFound }
    let id = String(parts[parts.count - 2])
    let content = Array("%PDF-1.4\n% attachment \(id) for \(session.user ?? "")\n".utf8)
    return HTTPResponse(
      status: 200,
      headers: [
        "Content-Type": "application/pdf",
        "Content-Disposition": "attachment; filename=\"\(id).pdf\"",
      ],
      body: content)
  }

  /// `POST /api/v1.0/blob/upload/`: an upload, only with the CSRF token.
  func upload(_ request: HTTPRequest, _ session: Session) -> HTTPResponse {
    let digest = Hex.encode(Digest.sha256(request.body)).prefix(16)
    event("upload of \(request.body.count) bytes accepted for \(session.user ?? "?")")
    return .json(["blobId": "blob-\(digest)", "size": request.body.count], status: 201)
  }
}
