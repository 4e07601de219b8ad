/// What the log holds of one developer-hosted seat claim (by its `requestIdentifier`): the
/// request, Apple's answer, the backend's release, and the newest association. Each kind keeps
/// one event, chosen by time and a fixed order, so the record is the same whatever order the
/// events were folded in.
public struct SeatClaimRecord: Hashable, Sendable {
  public let requestIdentifier: String
  var requestedInput: FoldInput?
  var claimedInput: FoldInput?
  var refusedInput: FoldInput?
  var releasedInput: FoldInput?
  var associatedInput: FoldInput?

  init(requestIdentifier: String) {
    self.requestIdentifier = requestIdentifier
  }

  static func seat(_ input: FoldInput?) -> SeatClaimEvent? {
    guard case .seat(let event)? = input?.body else { return nil }
    return event
  }

  public var requested: SeatClaimEvent? { Self.seat(requestedInput) }
  public var claimed: SeatClaimEvent? { Self.seat(claimedInput) }
  public var refused: SeatClaimEvent? { Self.seat(refusedInput) }
  public var released: SeatClaimEvent? { Self.seat(releasedInput) }

  public var originalTransactionId: String? {
    (requested ?? claimed ?? refused ?? released)?.originalTransactionId
  }
  /// The member the seat is for.
  public var appAccountToken: String? { requested?.appAccountToken ?? claimed?.appAccountToken }
  /// Apple's id of the claim, once Claim Seat answered.
  public var seatClaimId: String? { claimed?.seatClaimId }
  /// The member's app download: the newest association's, else the request's.
  public var appTransactionId: String? {
    Self.seat(associatedInput)?.appTransactionId ?? requested?.appTransactionId
  }
  public var claimedAt: Timestamp? { claimed?.occurredAt }

  /// The events that made the claim (its request and Apple's answer), for explanations.
  public var claimSources: [EventReference] {
    [requestedInput, claimedInput].compactMap { $0?.reference }
  }
  public var releaseSource: EventReference? { releasedInput?.reference }

  mutating func absorb(_ input: FoldInput) {
    guard let event = Self.seat(input) else { return }
    switch event.action {
    case .requested: Self.keepEarliest(input, in: &requestedInput)
    case .claimed: Self.keepEarliest(input, in: &claimedInput)
    case .refused: Self.keepEarliest(input, in: &refusedInput)
    case .released: Self.keepEarliest(input, in: &releasedInput)
    case .reconciled: return
    case .associated:
      guard let current = associatedInput else {
        associatedInput = input
        return
      }
      let (mine, theirs) = (event.occurredAt, Self.seat(current)?.occurredAt ?? event.occurredAt)
      if mine > theirs || (mine == theirs && input.ordersAfter(current)) { associatedInput = input }
    }
  }

  private static func keepEarliest(_ input: FoldInput, in slot: inout FoldInput?) {
    if slot.map({ input.precedes($0) }) ?? true { slot = input }
  }
}

/// The App Store released a seat claim (`UNCLAIM_SEATS`): the earliest notification naming
/// the claim decides when.
public struct SeatUnclaimRecord: Hashable, Sendable {
  public let seatClaimId: String
  let input: FoldInput

  public var unclaimedAt: Timestamp? { input.effectiveDate }
  public var source: EventReference { input.reference }

  func precedes(_ other: SeatUnclaimRecord) -> Bool { input.precedes(other.input) }
}
