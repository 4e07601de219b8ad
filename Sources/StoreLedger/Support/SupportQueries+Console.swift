import Foundation
import StoreLedgerCore

/// What the support console asks of the ledger: read only.
extension SupportQueries {
  /// An account a search found, and what matched.
  public struct AccountMatch: Sendable, Hashable {
    public let appAccountToken: String
    /// `appAccountToken`, `originalTransactionId`, `transactionId`, `appTransactionId`,
    /// `orderId` (an order a lookup recorded), `alias` (the backend's id for the account),
    /// `appAccountToken prefix` or `transactionId prefix`.
    public let matched: String
  }

  /// The numbers an on-call person looks at first, from the read models and the log.
  public struct Overview: Sendable {
    public var accounts: Int
    /// Subscriptions by status (1–5) as their accounts' views were last projected.
    public var subscriptionsByStatus: [Int: Int]
    /// Accounts holding each entitlement in force, as last projected.
    public var entitlementsInForce: [String: Int]
    public var lastNotificationAt: Date?
    public var lastNotificationType: String?
    public var notificationsLast24Hours: Int
    public var consumption: ConsumptionMetrics
    public var changeDeliveries: [ChangeDeliveryCounts]
  }

  /// The accounts `query` names: an appAccountToken (in any common spelling: without dashes,
  /// in braces, upper case), an
  /// originalTransactionId or transactionId, an appTransactionId, or an order id whose lookup
  /// the log recorded. Empty when nothing matches.
  public func findAccounts(matching query: String) async throws(LedgerError) -> [AccountMatch] {
    let query = query.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !query.isEmpty, query.count <= 128 else {
      throw LedgerError(
        .invalidRequest,
        "search by an appAccountToken (or its start), a transaction id (or its start), an "
          + "appTransactionId, an order id or your own user id for the account")
    }
    // No token, id or alias holds a NUL (PostgreSQL text cannot): nothing matches it.
    guard !query.unicodeScalars.contains("\u{0}") else { return [] }
    let environments = configuration.environments.map(\.rawValue)
    let spelled = AppAccountToken.fromAnySpelling(query) ?? query
    do {
      return try await self.support.accounts(
        matching: spelled, environments: environments, consistency: .readYourWrites
      ).value.map { AccountMatch(appAccountToken: $0.token, matched: $0.matched) }
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// The explainer of an account whose events were already read (``events(for:)``).
  public func explainer(folding recorded: [RecordedEvent]) throws(LedgerError) -> AccountExplainer {
    do {
      let events = try recorded.filter { EventCodec.holdsLedgerEvent($0.eventType) }
        .map(EventCodec.event)
      return AccountExplainer(
        events: events, catalog: configuration.catalog, options: configuration.options
      )
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// A page of the account's changes, newest first (page 0 is the newest `size`), and how
  /// many changes the account has in all.
  public func newestChanges(of appAccountToken: String, page: Int, size: Int)
    async throws(LedgerError) -> (changes: [ChangeRecord], total: Int)
  {
    let token = try AppAccountToken.checked(appAccountToken)
    guard page >= 0, (1...1000).contains(size) else {
      throw LedgerError(.invalidRequest, "a page is 0 or more and holds 1 to 1000 changes")
    }
    do {
      let read = try await self.changes.newestChanges(
        of: token, offset: page * size, limit: size, consistency: .readYourWrites
      ).value
      return (read.changes, Int(read.count ?? 0))
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// The overview at `now` (notifications counted over the 24 hours before it).
  public func overview(now: Date = Date()) async throws(LedgerError) -> Overview {
    let read: ConsoleOverview
    do {
      read = try await self.support.overview(
        since: now.addingTimeInterval(-86_400), consistency: .readYourWrites
      ).value
    } catch {
      throw LedgerStorage.mapped(error)
    }
    return Overview(
      accounts: read.accounts, subscriptionsByStatus: read.subscriptionsByStatus,
      entitlementsInForce: read.entitlementsInForce, lastNotificationAt: read.lastNotificationAt,
      lastNotificationType: read.lastNotificationType,
      notificationsLast24Hours: read.notificationsSince,
      consumption: try await consumption.metrics(),
      changeDeliveries: try await deliveryLog.changeDeliveryCounts())
  }
}

extension SupportQueries {
  /// The log's `limit` newest rows across accounts, newest first (no payloads).
  public func newestEvents(limit: Int = 50) async throws(LedgerError) -> [LogEntrySummary] {
    guard (1...1000).contains(limit) else {
      throw LedgerError(.invalidRequest, "limit must be between 1 and 1000")
    }
    do {
      return try await self.support.newestEvents(
        limit: limit, consistency: .readYourWrites
      ).value
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }
}
