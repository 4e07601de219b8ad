import Foundation
import Hummingbird
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// The reads of one account: entitlements, subscriptions, balances, history, explanations.
/// Each folds the account's streams as they are now, so it reflects every ingest that has
/// returned.
struct AccountController: Sendable {
  let ledger: Ledger

  struct Entitlements: Encodable {
    let appAccountToken: String
    let asOf: Timestamp
    let entitlements: [EntitlementView]
  }

  struct Subscriptions: Encodable {
    let appAccountToken: String
    let asOf: Timestamp
    let subscriptions: [SubscriptionView]
  }

  struct Balances: Encodable {
    let appAccountToken: String
    let asOf: Timestamp
    let consumables: [Balance]
  }

  struct Balance: Encodable {
    let productId: String
    let purchased: Int64
    let refunded: Int64
    let debited: Int64
    let balance: Int64
  }

  struct Events: Encodable {
    let appAccountToken: String
    let events: [StoredEvent]
  }

  func register(on group: RouterGroup<BasicRequestContext>) {
    group.get("/v1/accounts/{token}/entitlements") { request, context in
      let token = try Self.token(context)
      let time = try Self.time(request)
      let entitlements = try await ledger.entitlements(for: token, at: time)
      return try JSONBody.response(
        Entitlements(appAccountToken: token, asOf: Timestamp(time), entitlements: entitlements))
    }
    group.get("/v1/accounts/{token}/subscriptions") { request, context in
      let token = try Self.token(context)
      let time = try Self.time(request)
      let subscriptions = try await ledger.subscriptions(for: token, at: time)
      return try JSONBody.response(
        Subscriptions(appAccountToken: token, asOf: Timestamp(time), subscriptions: subscriptions))
    }
    group.get("/v1/accounts/{token}/consumables") { request, context in
      let token = try Self.token(context)
      let time = try Self.time(request)
      let balances = try await ledger.balances(for: token, at: time).map {
        Balance(
          productId: $0.productId, purchased: $0.purchased, refunded: $0.refunded,
          debited: $0.debited, balance: $0.balance)
      }
      return try JSONBody.response(
        Balances(appAccountToken: token, asOf: Timestamp(time), consumables: balances))
    }
    group.get("/v1/accounts/{token}/events") { _, context in
      let token = try Self.token(context)
      let events = try await ledger.events(for: token).map(StoredEvent.init)
      return try JSONBody.response(Events(appAccountToken: token, events: events))
    }
    group.get("/v1/accounts/{token}/entitlements/{entitlement}/explanation") { request, context in
      let token = try Self.token(context)
      let entitlement = try context.parameters.require("entitlement")
      guard
        let explanation = try await ledger.explain(
          entitlement: entitlement, for: token, at: try Self.time(request))
      else {
        throw APIError(.notFound, "not_found", "the account has no such entitlement")
      }
      return try JSONBody.response(explanation)
    }
  }

  /// `?at=` as ISO 8601 (with or without fractional seconds); now when absent.
  /// The path's account token in canonical (lower-case) form; refused unless it is a UUID.
  static func token(_ context: BasicRequestContext) throws -> String {
    let raw = try context.parameters.require("token")
    guard let token = AppAccountToken.canonical(raw) else {
      throw APIError.invalidRequest(
        "an appAccountToken is a UUID, such as \(AppAccountToken.example) (any case)")
    }
    return token
  }

  static func time(_ request: Request) throws -> Date {
    guard let text = request.uri.queryParameters.get("at") else { return Date() }
    guard let date = ISO8601Parsing.date(text) else {
      throw APIError.invalidRequest("`at` must be an ISO 8601 time, like 2026-11-22T08:00:00Z")
    }
    return date
  }
}
