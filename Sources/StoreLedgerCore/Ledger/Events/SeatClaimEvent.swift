/// StoreLedger's own record of a seat claim in a developer-hosted group subscription
/// (reference §8.13): members of such a group get no App Store transaction, so these claims
/// are their access. Kept in the stream `seats:<environment>:<originalTransactionId>`, never
/// mistaken for Apple's evidence (no claims, no JWS).
///
/// A claim is recorded `requested` (with its `requestIdentifier`) before Claim Seat is called,
/// so a retry after a crash sends the same identifier and Apple answers with the same claim
/// instead of taking a second seat; then `claimed` with Apple's `seatClaimId`, or `refused`
/// with Apple's error. `released` records an Unclaim Seat the backend asked for (the App
/// Store's own releases arrive as `UNCLAIM_SEATS` notifications); `associated` an Associate
/// Seat.
public struct SeatClaimEvent: Hashable, Sendable, Codable {
  public static let eventType = EventTypes.seat

  public enum Action: String, Hashable, Sendable, Codable, CaseIterable {
    case requested, claimed, refused, released, associated
    /// Get Seat Info disagreed with the ledger: Apple's answer kept as evidence (`reason`).
    case reconciled
  }

  public var action: Action
  public var originalTransactionId: String
  /// The claim's request: every event of one claim carries it.
  public var requestIdentifier: String
  /// Apple's id of the claim (`claimed` and later).
  public var seatClaimId: String?
  /// The member the seat is for (canonical appAccountToken).
  public var appAccountToken: String?
  /// The member's app download, when known (`requested`, `associated`).
  public var appTransactionId: String?
  /// Apple's error code (`refused`).
  public var appleErrorCode: String?
  /// Why, in words (a refusal's message, a release's reason).
  public var reason: String?
  /// When StoreLedger did it.
  public var occurredAt: Timestamp

  public init(
    _ action: Action, originalTransactionId: String, requestIdentifier: String,
    seatClaimId: String? = nil, appAccountToken: String? = nil, appTransactionId: String? = nil,
    appleErrorCode: String? = nil, reason: String? = nil, at occurredAt: Timestamp
  ) {
    self.action = action
    self.originalTransactionId = originalTransactionId
    self.requestIdentifier = requestIdentifier
    self.seatClaimId = seatClaimId
    self.appAccountToken = appAccountToken
    self.appTransactionId = appTransactionId
    self.appleErrorCode = appleErrorCode
    self.reason = reason
    self.occurredAt = occurredAt
  }
}
