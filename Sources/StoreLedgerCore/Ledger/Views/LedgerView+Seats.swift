/// Multiseat (group) subscriptions (reference §8.13, projections/seats.md): the seats of the
/// current period, the developer-hosted claims in force, and the members they entitle.
extension LedgerView {
  /// Whether `claim` holds at `time` (rule M4): Apple answered it with a seat claim by then,
  /// and neither the backend (Unclaim Seat) nor the App Store (`UNCLAIM_SEATS`) released it
  /// by then. A renewal with fewer seats never releases a claim.
  public func holds(_ claim: SeatClaimRecord, at time: Timestamp) -> Bool {
    guard claim.refused == nil, let claimedAt = claim.claimedAt, claimedAt <= time else {
      return false
    }
    if let released = claim.released?.occurredAt, released <= time { return false }
    if let id = claim.seatClaimId, let unclaimed = state.seatUnclaims[id]?.unclaimedAt,
      unclaimed <= time
    {
      return false
    }
    return true
  }

  /// The claims of subscription `originalTransactionId` in force at `time`, oldest first.
  public func seatClaims(ofChain originalTransactionId: String, at time: Timestamp)
    -> [SeatClaimRecord]
  {
    state.seatClaims.values
      .filter { $0.originalTransactionId == originalTransactionId && holds($0, at: time) }
      .sorted {
        ($0.claimedAt?.milliseconds ?? .min, $0.requestIdentifier)
          < ($1.claimedAt?.milliseconds ?? .min, $1.requestIdentifier)
      }
  }

  /// Every claim in force at `time`, by seat claim id.
  func seatClaimViews(at time: Timestamp) -> [SeatClaimView] {
    guard !state.seatClaims.isEmpty else { return [] }
    return state.seatClaims.values.compactMap { claim -> SeatClaimView? in
      guard holds(claim, at: time), let id = claim.seatClaimId,
        let chain = claim.originalTransactionId
      else { return nil }
      return SeatClaimView(
        seatClaimId: id, originalTransactionId: chain, appAccountToken: claim.appAccountToken,
        appTransactionId: claim.appTransactionId, claimedAt: claim.claimedAt,
        requestIdentifier: claim.requestIdentifier)
    }.sorted { $0.seatClaimId < $1.seatClaimId }
  }

  /// The seats of `current`'s period at `time` (rules M1–M3, M5); nil for a subscription
  /// that is not multiseat.
  func seats(
    _ chain: SubscriptionChain, current: TransactionRecord, renewal: RenewalRecord?,
    at time: Timestamp
  ) -> SeatsView? {
    let period = chain.period(of: current, at: time)
    guard period.contains(where: { $0.facts.plan?.multiSeat != nil || $0.isSeatAddition }) else {
      return nil
    }
    var (total, revoked): (Int64, Int64) = (0, 0)
    for record in period {
      let quantity = record.facts.quantity
      if record.isRevoked(at: time) {
        revoked += quantity
        continue
      }
      let refunded = min(quantity, Int64(record.facts.plan?.multiSeat?.revokedSeatQuantity ?? 0))
      revoked += refunded
      total += quantity - refunded
    }
    let claims = seatClaims(ofChain: chain.originalTransactionId, at: time)
    let beyond = claims.count > total ? claims[Int(max(0, total))...].reversed() : []
    let management = period.lazy.compactMap { $0.facts.plan?.multiSeat?.invitationManagement }
      .first
    return SeatsView(
      invitationManagement: management?.rawValue, total: total, revoked: revoked,
      claimed: Int64(claims.count), renewalQuantity: renewal?.facts.plan?.renewalQuantity,
      overClaimed: beyond.compactMap(\.seatClaimId),
      transactionIds: period.map(\.facts.transactionId).sorted())
  }

  /// Each developer-hosted member's claim on the group subscription's entitlements (rule E5):
  /// active while the claim holds and the subscription entitles.
  func seatGrants(in moment: LedgerMoment, explained: Bool) -> [EntitlementGrant] {
    guard !state.seatClaims.isEmpty else { return [] }
    let time = moment.time
    var subscriptions: [String: LedgerMoment.Subscription] = [:]
    for subscription in moment.subscriptions {
      subscriptions[subscription.chain.originalTransactionId] = subscription
    }
    return state.seatClaims.values.sorted { $0.requestIdentifier < $1.requestIdentifier }
      .flatMap { claim -> [EntitlementGrant] in
        guard let token = claim.appAccountToken, let id = claim.originalTransactionId,
          let seatClaimId = claim.seatClaimId, let claimedAt = claim.claimedAt, claimedAt <= time,
          let subscription = subscriptions[id], let product = subscription.view.productId
        else { return [] }
        let view = subscription.view
        let holds = self.holds(claim, at: time)
        let active = holds && view.entitled
        let end =
          view.status == SubscriptionStatus.billingGracePeriod.rawValue
          ? view.gracePeriodExpiresDate : view.expiresDate
        let explanation =
          explained
          ? seatExplanation(claim, seatClaimId, holds: holds, active: active, subscription) : nil
        return catalog.entitlements(of: product).map {
          EntitlementGrant(
            appAccountToken: token, entitlement: $0, active: active,
            expiresDate: holds ? end : (claim.released?.occurredAt ?? unclaimedAt(claim)),
            source: "seat:\(seatClaimId)", rule: .seat, environment: view.environment,
            appTransactionId: claim.appTransactionId, explanation: explanation)
        }
      }
  }

  private func unclaimedAt(_ claim: SeatClaimRecord) -> Timestamp? {
    claim.seatClaimId.flatMap { state.seatUnclaims[$0]?.unclaimedAt }
  }

  private func seatExplanation(
    _ claim: SeatClaimRecord, _ seatClaimId: String, holds: Bool, active: Bool,
    _ subscription: LedgerMoment.Subscription
  ) -> Explanation {
    let chain = subscription.chain.originalTransactionId
    var events = claim.claimSources
    var answer: String
    var sentence: String
    let product = subscription.view.productId ?? "the group subscription"
    if holds {
      events += subscription.result.events
      answer =
        active
        ? "entitled: the claim holds and subscription \(chain) is entitled"
        : "not entitled: the claim holds but subscription \(chain) is not entitled (status \(subscription.view.status))"
      let status = SubscriptionStatus(rawValue: subscription.view.status).name
      sentence =
        active
        ? "The customer holds a seat of \(product), which is \(status)"
        : "The customer holds a seat of \(product), but it is \(status), so the seat gives no access"
    } else if let release = claim.releaseSource,
      let releasedAt = claim.released?.occurredAt,
      unclaimedAt(claim).map({ releasedAt <= $0 }) ?? true
    {
      events.append(release)
      answer = "not entitled: the seat claim was released by the backend (Unclaim Seat)"
      sentence =
        "The seat of \(product) was given back on \(ExplanationWording.day(releasedAt)) (released by this backend)"
    } else if let unclaim = state.seatUnclaims[seatClaimId] {
      events.append(unclaim.source)
      answer = "not entitled: the App Store released the seat claim (UNCLAIM_SEATS)"
      sentence =
        "The App Store took the seat of \(product) back on \(ExplanationWording.day(unclaim.unclaimedAt))"
    } else {
      answer = "not entitled"
      sentence = "The seat of \(product) gives no access"
    }
    return Explanation(
      subject: "seat claim \(seatClaimId) of subscription \(chain)", answer: answer,
      sentence: sentence, rule: EntitlementRule.seat.summary, events: events)
  }
}
