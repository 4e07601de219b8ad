import AppStoreServerAPI
import Foundation
import Logging
import StoreLedgerCore

/// A group purchase chain's seats as the log holds them, and how a claim is recorded and
/// reported.
extension SeatLedger {
  struct Chain {
    var environment: String
    var view: LedgerView
  }

  /// The subscription's purchase chain and its seat claims, folded (from the environment
  /// whose chain the log holds).
  func load(_ originalTransactionId: String) async throws(LedgerError) -> Chain {
    guard !originalTransactionId.isEmpty, originalTransactionId.count <= 64,
      originalTransactionId.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 })
    else {
      throw LedgerError(.invalidRequest, "an originalTransactionId is Apple's numeric id")
    }
    let environments = configuration.environments.map(\.rawValue)
    let streams = environments.flatMap {
      ["sub:\($0):\(originalTransactionId)", LedgerRecord.seatsStream($0, originalTransactionId)]
    }
    let log = self.log
    let rows = try await calls.run { try await log.readStreams(streams) }
    guard
      let environment = environments.first(where: { environment in
        rows.contains { $0.streamId == "sub:\(environment):\(originalTransactionId)" }
      })
    else {
      throw LedgerError(
        .notFound,
        "the ledger holds no subscription \(originalTransactionId); ingest or replay it first")
    }
    let events: [LedgerEvent]
    do {
      events = try rows.filter { $0.streamId.hasSuffix(":\(originalTransactionId)") }
        .filter { $0.streamId.contains(":\(environment):") }
        .map(EventCodec.event)
    } catch {
      throw LedgerStorage.mapped(error)
    }
    let view = LedgerView(
      LedgerState.fold(events), catalog: configuration.catalog,
      options: configuration.options)
    return Chain(environment: environment, view: view)
  }

  func record(_ event: SeatClaimEvent, _ chain: Chain, member: String?)
    async throws(LedgerError)
  {
    let record = try LedgerRecord.mapped {
      try LedgerRecord.seat(event, environment: chain.environment, source: "seats")
    }
    let purchaser = chain.view.subscription(
      event.originalTransactionId, at: event.occurredAt)?.appAccountToken
    // The member's and the purchaser's accounts hold the seat stream and the purchase chain:
    // their folds see the claims and the subscription they depend on.
    _ = try await writer.append(
      record, accounts: [member, purchaser].compactMap { $0 },
      alsoIndexing: ["sub:\(chain.environment):\(event.originalTransactionId)"])
  }

  func report(_ chain: Chain, at time: Timestamp) throws(LedgerError) -> Report {
    guard
      let id = chain.view.chains.keys.first,
      let subscription = chain.view.subscription(id, at: time)
        ?? chain.view.subscriptions(at: Timestamp(milliseconds: .max)).first
    else {
      throw LedgerError(.notFound, "the subscription has no period yet")
    }
    let claims = chain.view.state.seatClaims.values
      .sorted {
        ($0.requested?.occurredAt.milliseconds ?? .min, $0.requestIdentifier)
          < ($1.requested?.occurredAt.milliseconds ?? .min, $1.requestIdentifier)
      }
      .map { claim(from: $0, chain, overClaimed: subscription.seats?.overClaimed ?? [], at: time) }
    return Report(
      originalTransactionId: subscription.originalTransactionId, environment: chain.environment,
      appAccountToken: subscription.appAccountToken, productId: subscription.productId,
      status: subscription.status, entitled: subscription.entitled, seats: subscription.seats,
      claims: claims, asOf: time)
  }

  func claimReport(_ record: SeatClaimRecord, _ chain: Chain, at time: Timestamp)
    throws(LedgerError) -> Claim
  {
    let over =
      record.originalTransactionId.flatMap {
        chain.view.subscription($0, at: time)?.seats?.overClaimed
      } ?? []
    return claim(from: record, chain, overClaimed: over, at: time)
  }

  func claim(
    from record: SeatClaimRecord, _ chain: Chain, overClaimed: [String], at time: Timestamp
  ) -> Claim {
    let unclaimed = record.seatClaimId.flatMap { chain.view.state.seatUnclaims[$0] }
    let state: Claim.State
    var ended: Timestamp?
    if record.refused != nil {
      state = .refused
      ended = record.refused?.occurredAt
    } else if record.claimed == nil {
      state = .pending
    } else if chain.view.holds(record, at: time) {
      state = .claimed
    } else if let released = record.released?.occurredAt,
      unclaimed?.unclaimedAt.map({ released <= $0 }) ?? true
    {
      state = .released
      ended = released
    } else {
      state = .unclaimedByApple
      ended = unclaimed?.unclaimedAt
    }
    return Claim(
      requestIdentifier: record.requestIdentifier, seatClaimId: record.seatClaimId,
      appAccountToken: record.appAccountToken, appTransactionId: record.appTransactionId,
      state: state, claimedAt: record.claimedAt, endedAt: ended,
      appleErrorCode: record.refused?.appleErrorCode,
      overClaimed: record.seatClaimId.map(overClaimed.contains) ?? false)
  }

  func requireApple(_ what: String) throws(LedgerError) -> AppStoreServerAPIClient {
    guard let apple else {
      throw LedgerError(
        .notConfigured,
        "\(what) calls the App Store Server API: give --key-id, --issuer-id and --p8 (Sandbox only for now)"
      )
    }
    return apple
  }

  static func claimId(_ text: String) throws(LedgerError) -> String {
    guard let id = UUID(uuidString: text) else {
      throw LedgerError(.invalidRequest, "a seatClaimId is a UUID, as Claim Seat returned it")
    }
    return id.uuidString.lowercased()
  }

  @discardableResult
  static func decided<Value>(_ decision: Result<Value, CommandRejection>) throws(LedgerError)
    -> Value
  {
    switch decision {
    case .success(let value): return value
    case .failure(let rejection) where rejection.code == .unknownSubscription:
      throw LedgerError(.notFound, rejection.message)
    case .failure(let rejection) where rejection.code == .unknownSeatClaim:
      throw LedgerError(.notFound, rejection.message)
    case .failure(let rejection) where rejection.code == .notDeveloperHosted:
      throw LedgerError(.notDeveloperHosted, rejection.message)
    case .failure(let rejection) where rejection.code == .subscriptionNotActive:
      throw LedgerError(.subscriptionNotActive, rejection.message)
    case .failure(let rejection):
      throw LedgerError(.invalidRequest, rejection.message)
    }
  }

  static func digest(_ text: String) -> String {
    var digest = StableDigest()
    digest.add(text)
    return String(digest.value, radix: 16)
  }
}
