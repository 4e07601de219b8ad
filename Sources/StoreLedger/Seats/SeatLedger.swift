import AppStoreServerAPI
import Foundation
import Logging
import StoreLedgerCore

/// The seats of developer-hosted group subscriptions (reference §8.13, projections/seats.md):
/// members of such a group get no App Store transaction, so the ledger's claims are their
/// access. Every step is recorded before or after the call to Apple as the rule needs it:
///
/// - **claim**: the request (with a fresh `requestIdentifier`) is appended before Claim Seat;
///   Apple's claim, or its refusal, after. A claim whose answer was lost (a crash, a timeout)
///   is sent again with the same identifier by the next claim for the same member, and Apple
///   then answers with the seat it took, never a second one.
/// - **release**: Unclaim Seat, then the release; **associate**: Associate Seat, then the
///   association. Apple's refusal records nothing.
/// - **reconcile**: Get Seat Info, compared with the ledger; disagreements are kept as
///   evidence beside the claims, never written over them.
public struct SeatLedger: Sendable {
  let writer: AccountWriter
  let verifiers: LedgerVerifiers
  let index: any AccountIndex
  let log: any EventLog
  let calls: StorageCalls
  let configuration: LedgerConfiguration
  let apple: AppStoreServerAPIClient?

  /// A claim as the ledger holds it.
  public struct Claim: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Hashable, Codable {
      /// Recorded, Apple's answer not recorded yet (sent again by the next claim).
      case pending
      case claimed
      /// Apple refused it; no seat was taken.
      case refused
      /// The backend released it (Unclaim Seat).
      case released
      /// The App Store released it (`UNCLAIM_SEATS`).
      case unclaimedByApple = "unclaimed_by_apple"
    }

    public var requestIdentifier: String
    public var seatClaimId: String?
    /// The member.
    public var appAccountToken: String?
    public var appTransactionId: String?
    public var state: State
    public var claimedAt: Timestamp?
    public var endedAt: Timestamp?
    public var appleErrorCode: String?
    /// Beyond the seats in force (after a renewal with fewer seats).
    public var overClaimed: Bool
  }

  /// One subscription's seats and claims.
  public struct Report: Sendable, Hashable, Encodable {
    public var originalTransactionId: String
    public var environment: String
    /// The purchaser.
    public var appAccountToken: String?
    public var productId: String?
    public var status: Int32
    public var entitled: Bool
    public var seats: SeatsView?
    /// Every claim the ledger holds, oldest request first.
    public var claims: [Claim]
    public var asOf: Timestamp
  }

  /// What a claim did: the claim, and whether it was made before (a retry).
  public struct Claimed: Sendable, Hashable, Encodable {
    public var claim: Claim
    public var wasDuplicate: Bool
  }

  // MARK: Reading

  /// The subscription's seats and every claim at `time`.
  public func show(_ originalTransactionId: String, at time: Date = Date())
    async throws(LedgerError) -> Report
  {
    let chain = try await load(originalTransactionId)
    return try report(chain, at: Timestamp(time))
  }

  // MARK: Claiming

  /// Claims a seat for `member` (an appAccountToken). Idempotent: a member with a claim in
  /// force gets it back (`wasDuplicate`); one whose last claim is pending sends it again with
  /// its identifier. `requestIdentifier` (an Idempotency-Key) names a new claim explicitly.
  public func claim(
    _ originalTransactionId: String, for member: String, appTransactionId: String? = nil,
    requestIdentifier: String? = nil, at time: Date = Date()
  ) async throws(LedgerError) -> Claimed {
    let member = try AppAccountToken.checked(member)
    if let appTransactionId, appTransactionId.isEmpty || appTransactionId.count > 64 {
      throw LedgerError(.invalidRequest, "an appTransactionId is Apple's id of a download")
    }
    if let requestIdentifier, requestIdentifier.isEmpty || requestIdentifier.count > 128 {
      throw LedgerError(.invalidRequest, "a request identifier is 1 to 128 characters")
    }
    let now = Timestamp(time)
    var chain = try await load(originalTransactionId)
    let existing = chain.view.state.seatClaims.values.filter {
      $0.originalTransactionId == originalTransactionId && $0.appAccountToken == member
    }
    if let requestIdentifier, let known = chain.view.state.seatClaims[requestIdentifier] {
      guard known.appAccountToken == member, known.originalTransactionId == originalTransactionId
      else {
        throw LedgerError(
          .conflict, "this request identifier was used for another claim; use a new one")
      }
      if known.claimed != nil || known.refused != nil {
        return Claimed(claim: try claimReport(known, chain, at: now), wasDuplicate: true)
      }
    } else if requestIdentifier == nil,
      let holding = existing.first(where: { chain.view.holds($0, at: now) })
    {
      return Claimed(claim: try claimReport(holding, chain, at: now), wasDuplicate: true)
    }
    try Self.decided(chain.view.decideSeatClaim(originalTransactionId, at: now))
    let apple = try requireApple("claiming a seat")
    let pending = existing.first { $0.claimed == nil && $0.refused == nil && $0.requested != nil }
    let request = requestIdentifier ?? pending?.requestIdentifier ?? UUID().uuidString.lowercased()
    let download = appTransactionId ?? pending?.appTransactionId
    if chain.view.state.seatClaims[request]?.requested == nil {
      try await record(
        SeatClaimEvent(
          .requested, originalTransactionId: originalTransactionId, requestIdentifier: request,
          appAccountToken: member, appTransactionId: download, at: now), chain, member: member)
    }
    let seatClaimId: String
    do {
      seatClaimId = try await apple.claimSeat(
        originalTransactionId,
        ClaimSeatRequest(requestIdentifier: request, appTransactionId: download))
    } catch {
      let failure = LedgerError.apple(error, doing: "claiming a seat")
      if failure.code == .appleRefused {
        try await record(
          SeatClaimEvent(
            .refused, originalTransactionId: originalTransactionId, requestIdentifier: request,
            appAccountToken: member,
            appleErrorCode: failure.appleErrorCode.map(String.init), reason: failure.message,
            at: now), chain, member: member)
      }
      throw failure
    }
    try await record(
      SeatClaimEvent(
        .claimed, originalTransactionId: originalTransactionId, requestIdentifier: request,
        seatClaimId: seatClaimId, appAccountToken: member, at: now), chain, member: member)
    chain = try await load(originalTransactionId)
    guard let made = chain.view.state.seatClaims[request] else {
      throw LedgerError(.databaseUnavailable, "the claim was recorded but could not be read back")
    }
    return Claimed(claim: try claimReport(made, chain, at: now), wasDuplicate: false)
  }

  /// Releases a claim (Unclaim Seat), then records it. Releasing a released claim again
  /// changes nothing. A claim Apple no longer knows (`SeatClaimIdNotFoundError`: the App
  /// Store may have released it) is recorded released, with Apple's word as the reason.
  public func release(_ originalTransactionId: String, seatClaimId: String, at time: Date = Date())
    async throws(LedgerError) -> Claim
  {
    let seatClaimId = try Self.claimId(seatClaimId)
    let now = Timestamp(time)
    var chain = try await load(originalTransactionId)
    let claim = try Self.decided(
      chain.view.decideSeatRelease(originalTransactionId, seatClaimId: seatClaimId))
    if !chain.view.holds(claim, at: now) {
      return try claimReport(claim, chain, at: now)
    }
    let apple = try requireApple("releasing a seat")
    var reason = "released by the backend"
    do {
      try await apple.unclaimSeat(originalTransactionId, seatClaimId: seatClaimId)
    } catch let error as AppStoreAPIError where error.apiErrorCode == .seatClaimIdNotFound {
      reason = "Apple no longer holds this claim (SeatClaimIdNotFoundError)"
    } catch {
      throw LedgerError.apple(error, doing: "releasing a seat")
    }
    try await record(
      SeatClaimEvent(
        .released, originalTransactionId: originalTransactionId,
        requestIdentifier: claim.requestIdentifier, seatClaimId: seatClaimId,
        appAccountToken: claim.appAccountToken, reason: reason, at: now), chain,
      member: claim.appAccountToken)
    chain = try await load(originalTransactionId)
    let released = chain.view.state.seatClaims[claim.requestIdentifier] ?? claim
    return try claimReport(released, chain, at: now)
  }

  /// Associate Seat: tells Apple which download occupies a claimed seat, then records it.
  public func associate(
    _ originalTransactionId: String, seatClaimId: String, appTransactionId: String,
    at time: Date = Date()
  ) async throws(LedgerError) -> Claim {
    let seatClaimId = try Self.claimId(seatClaimId)
    guard !appTransactionId.isEmpty, appTransactionId.count <= 64 else {
      throw LedgerError(.invalidRequest, "an appTransactionId is Apple's id of a download")
    }
    let now = Timestamp(time)
    var chain = try await load(originalTransactionId)
    let claim = try Self.decided(
      chain.view.decideSeatRelease(originalTransactionId, seatClaimId: seatClaimId))
    guard chain.view.holds(claim, at: now) else {
      throw LedgerError(.conflict, "seat claim \(seatClaimId) no longer holds")
    }
    if claim.appTransactionId == appTransactionId { return try claimReport(claim, chain, at: now) }
    let apple = try requireApple("associating a seat")
    do {
      try await apple.associateSeat(
        originalTransactionId, seatClaimId: seatClaimId, appTransactionId: appTransactionId)
    } catch {
      throw LedgerError.apple(error, doing: "associating a seat")
    }
    try await record(
      SeatClaimEvent(
        .associated, originalTransactionId: originalTransactionId,
        requestIdentifier: claim.requestIdentifier, seatClaimId: seatClaimId,
        appAccountToken: claim.appAccountToken, appTransactionId: appTransactionId, at: now),
      chain, member: claim.appAccountToken)
    chain = try await load(originalTransactionId)
    return try claimReport(
      chain.view.state.seatClaims[claim.requestIdentifier] ?? claim, chain, at: now)
  }

  /// What Apple and the ledger say of the subscription's seats, and where they disagree.
  public struct Reconciliation: Sendable, Hashable, Encodable {
    public var originalTransactionId: String
    public var apple: GetSeatInfoResponse
    public var ledgerTotal: Int64?
    public var ledgerClaims: [String]
    /// Claims Apple holds that the ledger does not (a claim made elsewhere, or a recorded
    /// answer lost), and the reverse, and a seat count that differs.
    public var onlyAtApple: [String]
    public var onlyInLedger: [String]
    public var totalDiffers: Bool
    /// Whether the disagreement was recorded now (an unchanged one is recorded once).
    public var recorded: Bool

    public var agrees: Bool { onlyAtApple.isEmpty && onlyInLedger.isEmpty && !totalDiffers }
  }

  /// Get Seat Info, compared with the ledger at `time`; a disagreement is recorded as
  /// evidence in the seat stream (`reconciled`, with Apple's answer), never over the claims.
  public func reconcile(_ originalTransactionId: String, at time: Date = Date())
    async throws(LedgerError) -> Reconciliation
  {
    let apple = try requireApple("reading seat info")
    let chain = try await load(originalTransactionId)
    let info: GetSeatInfoResponse
    do {
      info = try await apple.seatInfo(originalTransactionId)
    } catch {
      throw LedgerError.apple(error, doing: "reading seat info")
    }
    let now = Timestamp(time)
    let ours = chain.view.seatClaims(ofChain: originalTransactionId, at: now)
      .compactMap(\.seatClaimId)
    let theirs = (info.assignedSeatClaimIds ?? []).map { $0.lowercased() }
    let total = chain.view.subscription(originalTransactionId, at: now)?.seats?.total
    var result = Reconciliation(
      originalTransactionId: originalTransactionId, apple: info, ledgerTotal: total,
      ledgerClaims: ours.sorted(), onlyAtApple: Set(theirs).subtracting(ours).sorted(),
      onlyInLedger: Set(ours).subtracting(theirs).sorted(),
      totalDiffers: info.totalSeatCount.map { Int64($0) != total } ?? false, recorded: false)
    guard !result.agrees else { return result }
    let summary =
      "Get Seat Info: total \(info.totalSeatCount.map(String.init) ?? "-"), claims at Apple "
      + "only \(result.onlyAtApple), in the ledger only \(result.onlyInLedger)"
    let digest = Self.digest(summary)
    let ingested = try await writer.append(
      try LedgerRecord.mapped {
        try LedgerRecord.seat(
          SeatClaimEvent(
            .reconciled, originalTransactionId: originalTransactionId,
            requestIdentifier: "reconcile-\(digest)", reason: summary, at: now),
          environment: chain.environment, source: "reconcile")
      }, accounts: [])
    result.recorded = !ingested.wasDuplicate
    return result
  }
}
