import AppStoreServerAPI
import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// Signing in and out of the console, and the checks every page passes first.
extension ConsoleController {
  func session(of request: Request) -> String? {
    for field in request.headers[values: .cookie] {
      for pair in field.split(separator: ";") {
        let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
        if parts.count == 2, parts[0] == ConsoleSessions.cookie { return String(parts[1]) }
      }
    }
    return nil
  }

  func signedIn(_ request: Request, _ page: () async throws -> Response) async throws
    -> Response
  {
    guard let token = session(of: request), let reference = sessions.keyReference(token),
      try await !ConsoleSignOuts(ledger: ledger).isSignedOut(token),
      let grant = try await ring.grant(session: reference), grant.allows(.console)
    else {
      // The page asked for comes back after sign-in: a link pasted into a ticket opens it.
      var destination = request.uri.path
      if let query = request.uri.query, !query.isEmpty { destination += "?" + query }
      let next = destination.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
      return ConsolePage.redirect(to: "\(base)/sign-in?next=\(next)")
    }
    return try await ConsolePage.$grant.withValue(grant) { try await page() }
  }

  /// A console page to return to after sign-in: a path of this console, nothing else (no
  /// other site, no scheme, no `//host`).
  func destination(_ next: String?) -> String? {
    guard let next, next == base || next.hasPrefix(base + "/") || next.hasPrefix(base + "?"),
      !next.hasPrefix("//"), !next.contains("\\"),
      !next.unicodeScalars.contains(where: { $0.value < 0x20 })
    else { return nil }
    return next
  }

  /// A form may only be posted from a page of this server: browsers say where a request comes
  /// from (`Sec-Fetch-Site`, `Origin`); one from another site is refused. Tools that send
  /// neither header (curl) are not browsers and carry no ambient cookie to abuse.
  static func isSameOrigin(_ request: Request) -> Bool {
    // Browsers of the last years say it outright; the pages' no-referrer policy makes their
    // Origin "null", so Sec-Fetch-Site decides when it is there.
    if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!] {
      return site == "same-origin" || site == "none"
    }
    guard let origin = request.headers[HTTPField.Name("Origin")!] else { return true }
    guard let host = request.headers[HTTPField.Name("Host")!] ?? request.head.authority,
      let url = URL(string: origin), let originHost = url.host
    else { return false }
    let originAuthority = originHost + (url.port.map { ":\($0)" } ?? "")
    return originAuthority.lowercased() == host.lowercased()
  }

  func crossOriginRefused() -> Response {
    message(
      "Refused",
      "A console form can only be sent from the console itself. Open the console and "
        + "try again.", status: .forbidden)
  }

  func signInPage(
    refused: Bool, next: String? = nil, scopes: Set<APIKeyScope>? = nil
  ) -> Response {
    let document = page.document(title: "Sign in", signedIn: false) { html in
      if let scopes {
        html.element(
          "p", ["class": "error", "role": "alert"],
          text: "That key may not open the console: its scopes are "
            + scopes.sorted().map(\.rawValue).joined(separator: ", ")
            + ". Use a key with the console scope.")
      } else if refused {
        html.element(
          "p", ["class": "error", "role": "alert"],
          text: "That key was not accepted. Use one of the server's API keys.")
      }
      html.element("form", ["method": "post", "action": "\(base)/sign-in"]) { html in
        if let next = destination(next) {
          html.void("input", ["type": "hidden", "name": "next", "value": next])
        }
        html.element("p") { html in
          html.element("label", ["for": "key"], text: "API key ")
          html.void(
            "input",
            [
              "id": "key", "name": "key", "type": "password", "required": "",
              "autocomplete": "off", "autofocus": "", "size": "40",
            ])
        }
        html.element("button", ["type": "submit"], text: "Sign in")
      }
      html.element(
        "p",
        text: "The console only reads the ledger. The key stays on this server: the browser keeps "
          + "a session cookie that ends after eight hours or at sign-out.")
    }
    return ConsolePage.response(document, status: refused ? .unauthorized : .ok)
  }

  func signIn(_ request: Request, peer: SocketAddress?) async throws -> Response {
    let body = try await request.body.collect(upTo: 4096)
    let form = String(buffer: body)
    // A key pasted with a space or a line break around it is the same key.
    let key = (Self.formValue("key", in: form) ?? "").trimmingCharacters(
      in: .whitespacesAndNewlines)
    let next = Self.formValue("next", in: form)
    let found: APIKeyGrant?
    do {
      found = try await ring.grant(for: key, peer: peer, headers: request.headers)
    } catch let error as APIError where error.status == .tooManyRequests {
      return message("Sign in", "\(error.message).", status: .tooManyRequests)
    }
    guard let grant = found else {
      return signInPage(refused: true, next: next)
    }
    guard grant.allows(.console) else {
      return signInPage(refused: true, next: next, scopes: grant.scopes)
    }
    let token = sessions.open(keyReference: grant.keyId ?? "configured")
    let secure = request.headers[HTTPField.Name("X-Forwarded-Proto")!] == "https" ? "; Secure" : ""
    // Lax: a link followed from a ticket or a chat carries the session; a form posted from
    // another site does not (and is refused anyway, isSameOrigin).
    return ConsolePage.redirect(
      to: destination(next) ?? base,
      cookie: "\(ConsoleSessions.cookie)=\(token); Path=\(cookiePath); HttpOnly; SameSite=Lax; "
        + "Max-Age=\(Int(sessions.lifetime.components.seconds))\(secure)")
  }

  /// Ends the session here at once, and on every server of the database (and one started
  /// later) from the sign-out's record: a copied cookie opens nothing afterwards.
  func signOut(_ request: Request) async throws -> Response {
    if let token = session(of: request), let expiry = sessions.expiry(of: token) {
      sessions.close(token)
      try await ConsoleSignOuts(ledger: ledger).record(token, expiresAt: expiry)
    }
    return ConsolePage.redirect(
      to: "\(base)/sign-in",
      cookie: "\(ConsoleSessions.cookie)=; Path=\(cookiePath); HttpOnly; SameSite=Lax; Max-Age=0"
    )
  }

  /// A value of an `application/x-www-form-urlencoded` body.
  static func formValue(_ name: String, in body: String) -> String? {
    for pair in body.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      guard parts.count == 2, parts[0] == name else { continue }
      return String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
    return nil
  }
}
