import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Logging
import StoreLedgerCore
import StoreLedgerPostgres

/// The account queries: the view folded from the log, entitlements, subscriptions, balances,
/// the stored history and the explanations.
extension Ledger {
  // MARK: Queries

  /// The account's state, folded from its streams in the log; of one environment's events
  /// only (and the backend's commands, which have none) when `environment` is given.
  public func view(
    for appAccountToken: String, environment: AppStoreEnvironment? = nil,
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> LedgerView {
    try await viewRead(
      for: try AppAccountToken.checked(appAccountToken), environment: environment,
      consistency: consistency
    ).value
  }

  /// The same, and the replica that answered (nil: the primary).
  func viewRead(
    for token: String, environment: AppStoreEnvironment? = nil, consistency: ReadConsistency
  ) async throws(LedgerError) -> ReadAnswer<LedgerView> {
    try await reader.read(token, environment: environment, consistency: consistency)
  }

  public func entitlements(
    for appAccountToken: String, at time: Date = Date(),
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> [EntitlementView] {
    try await summary(for: appAccountToken, at: time, consistency: consistency).entitlements
  }

  public func subscriptions(
    for appAccountToken: String, at time: Date = Date(),
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> [SubscriptionView] {
    try await summary(for: appAccountToken, at: time, consistency: consistency).subscriptions
  }

  public func balances(
    for appAccountToken: String, at time: Date = Date(),
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> [ConsumableView] {
    try await summary(for: appAccountToken, at: time, consistency: consistency).consumables
  }

  /// The account's history as stored, oldest first in each stream, with the original JWS.
  public func events(
    for appAccountToken: String, consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> [RecordedEvent] {
    try await reader.recordedEvents(
      of: try AppAccountToken.checked(appAccountToken), consistency: consistency)
  }

  /// Why the account has (or lacks) `entitlement` at `time`, from the events known by then:
  /// signed at or before `time` and, with `knownAt`, recorded by StoreLedger by `knownAt`.
  /// An entitlement nothing granted by then is answered "never held" (the default).
  public func explain(
    entitlement: String, for appAccountToken: String, at time: Date = Date(),
    knownAt: Date? = nil, consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> Explanation {
    try await explainer(for: appAccountToken, consistency: consistency).explain(
      entitlement: entitlement, for: try AppAccountToken.checked(appAccountToken),
      at: Timestamp(time),
      knownAt: knownAt.map(Timestamp.init))
  }

  /// Every entitlement of the catalog, and any other the account held, explained at `time`.
  public func explanations(
    for appAccountToken: String, at time: Date = Date(), knownAt: Date? = nil,
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> [Explanation] {
    try await explainer(for: appAccountToken, consistency: consistency).explainAll(
      for: try AppAccountToken.checked(appAccountToken), at: Timestamp(time),
      knownAt: knownAt.map(Timestamp.init))
  }

  /// The account's events, ready to be explained at any moment.
  public func explainer(
    for appAccountToken: String, consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> AccountExplainer {
    let token = try AppAccountToken.checked(appAccountToken)
    do {
      let events = try await storage.accounts.events(
        of: token, environment: nil, consistency: consistency
      ).value
      return AccountExplainer(
        events: events, catalog: configuration.catalog, options: configuration.options)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }
}
