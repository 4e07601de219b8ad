import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport
import Testing

/// The console's sessions and bad input over HTTP: pages need a session, a wrong key is
/// refused without echoing it, the cookie is HttpOnly and SameSite=Lax, sign-out ends the
/// session, bad tokens, times and queries get clear pages, and what a visitor typed is escaped.
@Suite(.enabled(if: TestDatabase.shouldRun)) struct ConsoleHTTPTests {
  typealias H = ServerHarness
  typealias F = LedgerFixtures

  static let form: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]

  static func signIn(_ client: some TestClientProtocol) async throws -> String {
    let answer = try await client.execute(
      uri: "/console/sign-in", method: .post, headers: form,
      body: ByteBuffer(string: "key=\(H.apiKey)"))
    #expect(answer.status == .seeOther)
    let cookie = try #require(answer.headers[.setCookie])
    #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
    #expect(cookie.contains("Path=/console") && cookie.contains("Max-Age=28800"))
    #expect(!cookie.contains(H.apiKey), "the cookie is a session token, not the key")
    return String(try #require(cookie.split(separator: ";").first))
  }

  @Test func sessionsGuardEveryPageAndEndAtSignOut() async throws {
    try await H.withInProcessServer { client, database in
      let anonymous = try await client.execute(uri: "/console", method: .get)
      #expect(anonymous.status == .seeOther)
      #expect(anonymous.headers[.location] == "/console/sign-in?next=%2Fconsole")
      let wrong = try await client.execute(
        uri: "/console/sign-in", method: .post, headers: Self.form,
        body: ByteBuffer(string: "key=sk-not-this-one"))
      #expect(wrong.status == .unauthorized)
      #expect(!String(buffer: wrong.body).contains("sk-not-this-one"))
      #expect(wrong.headers[.setCookie] == nil)
      let cookie = try await Self.signIn(client)
      let overview = try await client.execute(
        uri: "/console", method: .get, headers: [.cookie: cookie])
      #expect(overview.status == .ok)
      #expect(overview.headers[.cacheControl] == "no-store")
      #expect(overview.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
      let out = try await client.execute(
        uri: "/console/sign-out", method: .post, headers: [.cookie: cookie])
      #expect(out.status == .seeOther && out.headers[.setCookie]?.contains("Max-Age=0") == true)
      let after = try await client.execute(
        uri: "/console", method: .get, headers: [.cookie: cookie])
      #expect(after.status == .seeOther, "the old cookie opens nothing")
    }
  }

  static func server(
    _ configuration: ServerConfiguration,
    _ body: @Sendable (any TestClientProtocol) async throws -> Void
  ) async throws {
    let application = try buildApplication(configuration: configuration, logger: H.logger)
    try await application.test(.router) { client in try await body(client) }
  }

  static func opens(_ cookie: String, _ client: any TestClientProtocol) async throws -> Bool {
    try await client.execute(uri: "/console", method: .get, headers: [.cookie: cookie]).status
      == .ok
  }

  /// A copied cookie once opened the console again after sign-out on every other server, and
  /// on the same one after a restart, for up to eight hours. Given two servers on one database,
  /// when a session opened on one is signed out there, then neither it, nor the other, nor a
  /// server started afterwards opens a page with that cookie; a session not signed out still
  /// opens everywhere.
  @Test func signOutEndsTheSessionOnEveryServerAndAfterARestart() async throws {
    try await TestDatabase.withMigrated { database in
      let configuration = H.configuration(database)
      try await Self.server(configuration) { first in
        try await Self.server(configuration) { second in
          let copied = try await Self.signIn(first)
          let kept = try await Self.signIn(first)
          let elsewhere = try await Self.opens(copied, second)
          #expect(elsewhere, "a session opens on every server")
          let out = try await first.execute(
            uri: "/console/sign-out", method: .post, headers: [.cookie: copied])
          #expect(out.status == .seeOther)
          let here = try await Self.opens(copied, first)
          let there = try await Self.opens(copied, second)
          let other = try await Self.opens(kept, second)
          #expect(!here && !there, "signed out on every server")
          #expect(other, "another session stays open")
          // A server started afterwards knows it too.
          try await Self.server(configuration) { restarted in
            let copy = try await Self.opens(copied, restarted)
            let open = try await Self.opens(kept, restarted)
            #expect(!copy && open)
          }
        }
      }
      let rows = try await database.asAdmin { client in
        try await client.query(
          "SELECT count(*) FROM storeledger.console_sign_outs", logger: H.logger
        ) { rows in
          var count: Int64 = 0
          for try await value in rows.decode(Int64.self) { count = value }
          return count
        }
      }
      #expect(rows == 1, "one sign-out, kept as a digest")
    }
  }

  @Test func badInputGetsAClearPageAndTypedTextIsEscaped() async throws {
    try await H.withInProcessServer { client, database in
      let posted = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            .subscribed, .initialBuy, uuid: "console-1",
            transaction: F.transaction("8800", purchased: 0, expires: 30))))
      #expect(posted.status == .ok)
      // Apple asks about the purchase: the account page lists the request and the answer
      // (none yet); the request's own event is the console's only other.
      let asked = try await client.execute(
        uri: "/v1/notifications/appstore", method: .post,
        body: H.webhookBody(
          try H.signed.notification(
            .consumptionRequest, uuid: "c0c0a000-0000-4000-8000-000000000001",
            transaction: F.transaction("8800", purchased: 0, expires: 30))))
      #expect(asked.status == .ok)
      let cookie = try await Self.signIn(client)
      let session: HTTPFields = [.cookie: cookie]
      let cases: [(String, HTTPResponse.Status, String)] = [
        ("/console/accounts/not-a-token", .badRequest, "Not an account"),
        ("/console/accounts/00000000-0000-4000-8000-00000000ffff", .notFound, "No such account"),
        ("/console/accounts/\(F.account(1))?at=yesterday", .badRequest, "Not a time"),
        ("/console/search?q=", .badRequest, "search by an appAccountToken"),
        ("/console/search?q=%3Cscript%3Ealert(1)%3C%2Fscript%3E", .notFound, "Nothing matches"),
        ("/console/search?q=8800", .seeOther, ""),
        // A token as support receives it: no dashes, upper case, in braces.
        (
          "/console/search?q=\(F.account(1).replacingOccurrences(of: "-", with: "").uppercased())",
          .seeOther, ""
        ),
        ("/console/search?q=%7B\(F.account(1))%7D", .seeOther, ""),
        ("/console/accounts/\(F.account(1).uppercased())", .ok, "Subscription 8800: Expired (2)"),
      ]
      for (uri, status, text) in cases {
        let page = try await client.execute(uri: uri, method: .get, headers: session)
        let body = String(buffer: page.body)
        #expect(page.status == status, "\(uri)")
        #expect(text.isEmpty || body.contains(text), "\(uri)")
        #expect(!body.contains("<script"), "\(uri): typed text is escaped")
      }
      let found = try await client.execute(
        uri: "/console/search?q=8800", method: .get, headers: session)
      #expect(found.headers[.location] == "/console/accounts/\(F.account(1))")
      let account = try await client.execute(
        uri: "/console/accounts/\(F.account(1))", method: .get, headers: session)
      let html = String(buffer: account.body)
      #expect(
        html.contains(
          "<td>c0c0a000-0000-4000-8000-000000000001</td><td>8800</td><td>pending</td>"))
      #expect(try await H.eventCount(database) == 3, "the console stored nothing")
    }
  }

  /// A session outlives a restart and works on every server with the same keys (it is signed,
  /// not remembered); a form posted from another site is refused; the page asked for comes
  /// back after sign-in, but never another site; a pasted key's spaces are ignored.
  @Test func sessionsSurviveARestartAndFormsComeOnlyFromTheConsole() async throws {
    try await TestDatabase.withMigrated { database in
      let first = try buildApplication(
        configuration: H.configuration(database), logger: ServerHarness.logger)
      let cookie: String = try await first.test(.router) { client in
        let answer = try await client.execute(
          uri: "/console/sign-in", method: .post, headers: Self.form,
          body: ByteBuffer(
            string: "key=+\(H.apiKey)%20%0A&next=%2Fconsole%2Fsearch%3Fq%3D8800"))
        #expect(answer.status == .seeOther)
        #expect(answer.headers[.location] == "/console/search?q=8800")
        let cookie = String(
          try #require(answer.headers[.setCookie]?.split(separator: ";").first))
        for evil in [
          "https%3A%2F%2Fevil.example%2Fconsole", "%2F%2Fevil.example", "%2Fv1%2Fmetrics",
        ] {
          let away = try await client.execute(
            uri: "/console/sign-in", method: .post, headers: Self.form,
            body: ByteBuffer(string: "key=\(H.apiKey)&next=\(evil)"))
          #expect(away.headers[.location] == "/console", "\(evil)")
        }
        var crossSite = Self.form
        crossSite[HTTPField.Name("Sec-Fetch-Site")!] = "cross-site"
        let forged = try await client.execute(
          uri: "/console/sign-in", method: .post, headers: crossSite,
          body: ByteBuffer(string: "key=\(H.apiKey)"))
        #expect(forged.status == .forbidden && forged.headers[.setCookie] == nil)
        var otherOrigin = Self.form
        otherOrigin[.cookie] = cookie
        otherOrigin[HTTPField.Name("Origin")!] = "https://evil.example"
        let signOut = try await client.execute(
          uri: "/console/sign-out", method: .post, headers: otherOrigin)
        #expect(signOut.status == .forbidden, "a forged sign-out is refused")
        return cookie
      }
      // Another server (or this one restarted) with the same keys.
      let second = try buildApplication(
        configuration: H.configuration(database), logger: ServerHarness.logger)
      try await second.test(.router) { client in
        let overview = try await client.execute(
          uri: "/console", method: .get, headers: [.cookie: cookie])
        #expect(overview.status == .ok, "the session outlives the server that opened it")
        let forged = try await client.execute(
          uri: "/console", method: .get,
          headers: [.cookie: String(cookie.dropLast()) + (cookie.hasSuffix("0") ? "1" : "0")])
        #expect(forged.status == .seeOther, "a token changed by a byte opens nothing")
      }
    }
  }
}
