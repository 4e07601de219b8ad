import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// Operators' grants: give an account an entitlement for a period or until ended, end it, list
/// them, and grant many accounts at once (a list, or everyone who entered a status in a
/// window). Who gave it is the API key's name.
struct GrantsController: Sendable {
  let grants: SupportGrants

  struct GrantBody: Decodable {
    let entitlement: String
    let startsAt: String?
    let endsAt: String?
    let days: Int?
    let reason: String
    let idempotencyKey: String?
    let force: Bool?
  }

  struct EndBody: Decodable {
    let reason: String
  }

  struct BulkBody: Decodable {
    struct Entered: Decodable {
      let status: String
      let from: String
      let before: String
    }
    let appAccountTokens: [String]?
    let enteredStatus: Entered?
    let entitlement: String
    let startsAt: String?
    let endsAt: String?
    let days: Int?
    let reason: String
    let idempotencyKey: String
    let force: Bool?
  }

  struct Grants: Encodable {
    let grants: [SupportGrantStatus]
  }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.get("/v1/accounts/{token}/grants") { request, context in
      let token = try AccountController.token(context)
      let at = try AccountController.time(request)
      return try JSONBody.response(
        Grants(grants: try await grants.grants(of: token, at: at)))
    }
    group.post("/v1/accounts/{token}/grants") { request, context in
      try await create(request, context)
    }
    group.post("/v1/accounts/{token}/grants/{grantId}/end") { request, context in
      try await end(request, context)
    }
    group.post("/v1/grants") { request, _ in
      try await bulk(request)
    }
  }

  func create(_ request: Request, _ context: LedgerRequestContext) async throws -> Response {
    let token = try AccountController.token(context)
    let body = try await JSONBody.decode(
      GrantBody.self, from: request, limit: 8192,
      what:
        #"{"entitlement", "reason", "endsAt" or "days"?, "startsAt"?, "idempotencyKey"?, "force"?}"#
    )
    let now = Date()
    let (starts, ends) = try Self.period(body.startsAt, body.endsAt, body.days, now: now)
    let status = try await grants.grant(
      SupportGrantRequest(
        appAccountToken: token, entitlement: body.entitlement, startsAt: starts, endsAt: ends,
        reason: body.reason, by: Self.who(), idempotencyKey: body.idempotencyKey,
        force: body.force ?? false), now: now)
    return try JSONBody.response(status, status: .created)
  }

  func end(_ request: Request, _ context: LedgerRequestContext) async throws -> Response {
    let token = try AccountController.token(context)
    let grantId = try context.parameters.require("grantId")
    let body = try await JSONBody.decode(
      EndBody.self, from: request, limit: 4096, what: #"{"reason": "why it ends"}"#)
    return try JSONBody.response(
      try await grants.end(
        grantId: grantId, of: token, reason: body.reason, by: Self.who()))
  }

  func bulk(_ request: Request) async throws -> Response {
    let body = try await JSONBody.decode(
      BulkBody.self, from: request, limit: 1 << 20,
      what:
        #"{"appAccountTokens": [...] or "enteredStatus": {"status", "from", "before"}, "entitlement", "reason", "idempotencyKey", "endsAt" or "days"?}"#
    )
    let tokens: [String]
    switch (body.appAccountTokens, body.enteredStatus) {
    case (let list?, nil): tokens = list
    case (nil, let entered?):
      guard let from = InstantText.dateTime(entered.from)?.date else {
        throw APIError.invalidBody(InstantText.problem("`enteredStatus.from`", entered.from))
      }
      guard let before = InstantText.dateTime(entered.before)?.date else {
        throw APIError.invalidBody(InstantText.problem("`enteredStatus.before`", entered.before))
      }
      tokens = try await grants.accounts(
        enteredStatus: try AccountLists.status(named: entered.status), from: from,
        before: before)
      guard !tokens.isEmpty else {
        throw APIError(
          .notFound, "not_found", "no subscription entered that status in that window")
      }
    default:
      throw APIError.invalidBody(
        "name the accounts: `appAccountTokens` or `enteredStatus`, one of them")
    }
    let now = Date()
    let (starts, ends) = try Self.period(body.startsAt, body.endsAt, body.days, now: now)
    return try JSONBody.response(
      try await grants.grant(
        tokens, entitlement: body.entitlement, startsAt: starts, endsAt: ends,
        reason: body.reason, by: Self.who(), idempotencyKey: body.idempotencyKey,
        force: body.force ?? false, now: now))
  }

  /// The period a body asks for: `endsAt`, or `days` from its start.
  static func period(_ startsAt: String?, _ endsAt: String?, _ days: Int?, now: Date) throws
    -> (Date?, Date?)
  {
    func date(_ text: String?, _ name: String) throws -> Date? {
      guard let text else { return nil }
      guard let time = InstantText.dateTime(text) else {
        throw APIError.invalidBody(InstantText.problem("`\(name)`", text))
      }
      return time.date
    }
    let starts = try date(startsAt, "startsAt")
    if let days {
      guard endsAt == nil else { throw APIError.invalidBody("give `endsAt` or `days`, not both") }
      guard (1...3650).contains(days) else { throw APIError.invalidBody("`days` is 1 to 3650") }
      return (starts, (starts ?? now).addingTimeInterval(Double(days) * 86_400))
    }
    return (starts, try date(endsAt, "endsAt"))
  }

  static func who() -> String { APIKeyRequest.grant?.name ?? "api" }
}
