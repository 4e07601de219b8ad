/// The seat ledger's decisions (projections/seats.md): pure, over the fold of the group
/// subscription's purchase chain and its seat claims, at the time the command carries.
extension LedgerView {
  /// Whether a seat of subscription `originalTransactionId` may be claimed at `time`: it is
  /// a multiseat subscription with developer-hosted invitations (Apple's
  /// `TransactionNotDevManagedGroupError` otherwise) and entitled now
  /// (`SubscriptionNotActiveError`). Apple decides whether a seat is free; the ledger asks it.
  public func decideSeatClaim(_ originalTransactionId: String, at time: Timestamp)
    -> Result<SeatsView, CommandRejection>
  {
    guard let subscription = subscription(originalTransactionId, at: time) else {
      return .failure(
        .init(
          .unknownSubscription,
          "the ledger holds no auto-renewable subscription \(originalTransactionId); ingest or replay it first"
        ))
    }
    guard let seats = subscription.seats,
      seats.invitationManagement == InvitationManagement.developer.rawValue
    else {
      return .failure(
        .init(
          .notDeveloperHosted,
          "subscription \(originalTransactionId) is not a group subscription with developer-hosted invitations (invitationManagement DEVELOPER): its members hold their own transactions"
        ))
    }
    guard subscription.entitled else {
      return .failure(
        .init(
          .subscriptionNotActive,
          "subscription \(originalTransactionId) is not active (status \(subscription.status)): seats are claimed only while it is"
        ))
    }
    return .success(seats)
  }

  /// The claim of `seatClaimId` on subscription `originalTransactionId`, or why there is none.
  public func decideSeatRelease(_ originalTransactionId: String, seatClaimId: String)
    -> Result<SeatClaimRecord, CommandRejection>
  {
    guard
      let claim = state.seatClaims.values.first(where: {
        $0.seatClaimId == seatClaimId && $0.originalTransactionId == originalTransactionId
      })
    else {
      return .failure(
        .init(
          .unknownSeatClaim,
          "subscription \(originalTransactionId) has no seat claim \(seatClaimId) in the ledger; list its claims with `storeledger seats show`"
        ))
    }
    return .success(claim)
  }
}
