/// The one rule that derives changes: what differs between two snapshots of an account's
/// projection. Everything else (live derivation, a rebuild, the clock's sweep) applies it, so
/// the same log always yields the same changes. See projections/changes.md.
public enum AccountChanges {
  public static func diff(before: LedgerSnapshot, after: LedgerSnapshot) -> [AccountChange] {
    entitlements(before, after) + subscriptions(before, after) + refunds(before, after)
      + balances(before, after) + seatClaims(before, after) + consent(before, after)
      + supportGrants(before, after)
  }

  /// The subscriptions' status changes alone (with the billing and grace changes beside
  /// them): the part of ``diff(before:after:)`` the status history keeps.
  public static func statuses(before: LedgerSnapshot, after: LedgerSnapshot) -> [AccountChange] {
    pairs(before, after).flatMap { was, now in statusChanges(was, now) }
  }

  /// Each subscription of `after` in `originalTransactionId` order, with its view in `before`.
  private static func pairs(_ before: LedgerSnapshot, _ after: LedgerSnapshot)
    -> [(was: SubscriptionView?, now: SubscriptionView)]
  {
    // An account holds a few subscriptions: a scan finds each one's former view sooner than a
    // dictionary is built, and the views usually come in order already.
    let old = before.subscriptions
    let keyed: [String: SubscriptionView]? =
      old.count > 8
      ? Dictionary(old.map { ($0.originalTransactionId, $0) }, uniquingKeysWith: { a, _ in a })
      : nil
    let now = after.subscriptions
    let ordered =
      zip(now, now.dropFirst()).allSatisfy { $0.originalTransactionId < $1.originalTransactionId }
      ? now : now.sorted { $0.originalTransactionId < $1.originalTransactionId }
    return ordered.map { view in
      let id = view.originalTransactionId
      return (keyed.map { $0[id] } ?? old.first { $0.originalTransactionId == id }, view)
    }
  }

  /// An operator's grant in force that was not (grant.started), one no longer in force
  /// (grant.ended); the subject is the grant id, `new`/`old` the entitlement.
  private static func supportGrants(_ before: LedgerSnapshot, _ after: LedgerSnapshot)
    -> [AccountChange]
  {
    let old = Dictionary(before.supportGrants.map { ($0.grantId, $0) }) { a, _ in a }
    let new = Dictionary(after.supportGrants.map { ($0.grantId, $0) }) { a, _ in a }
    var changes: [AccountChange] = []
    for id in Set(old.keys).union(new.keys).sorted() {
      switch (old[id], new[id]) {
      case (nil, let grant?):
        changes.append(
          .init(.grantStarted, account: grant.appAccountToken, subject: id, new: grant.entitlement))
      case (let grant?, nil):
        changes.append(
          .init(.grantEnded, account: grant.appAccountToken, subject: id, old: grant.entitlement))
      default: continue
      }
    }
    return changes
  }

  /// A download's consent withdrawn (consent.rescinded; `new` says whether the policy ends its
  /// entitlements).
  private static func consent(_ before: LedgerSnapshot, _ after: LedgerSnapshot)
    -> [AccountChange]
  {
    let known = Set(before.consentRescinded.map(\.appTransactionId))
    return after.consentRescinded.filter { !known.contains($0.appTransactionId) }.map {
      AccountChange(
        .consentRescinded, account: $0.accounts.first, subject: $0.appTransactionId,
        new: $0.endsEntitlements ? "ends_entitlements" : "recorded")
    }
  }

  /// A claim in force that was not (seat.claimed), one no longer in force (seat.released),
  /// each for its member; the subject is the seat claim id, `new`/`old` the subscription.
  private static func seatClaims(_ before: LedgerSnapshot, _ after: LedgerSnapshot)
    -> [AccountChange]
  {
    let old = Dictionary(before.seatClaims.map { ($0.seatClaimId, $0) }) { a, _ in a }
    let new = Dictionary(after.seatClaims.map { ($0.seatClaimId, $0) }) { a, _ in a }
    var changes: [AccountChange] = []
    for id in Set(old.keys).union(new.keys).sorted() {
      switch (old[id], new[id]) {
      case (nil, let claim?):
        changes.append(
          .init(
            .seatClaimed, account: claim.appAccountToken, subject: id,
            new: claim.originalTransactionId))
      case (let claim?, nil):
        changes.append(
          .init(
            .seatReleased, account: claim.appAccountToken, subject: id,
            old: claim.originalTransactionId))
      default: continue
      }
    }
    return changes
  }

  private static func entitlements(_ before: LedgerSnapshot, _ after: LedgerSnapshot)
    -> [AccountChange]
  {
    func active(_ snapshot: LedgerSnapshot) -> [String: EntitlementView] {
      Dictionary(
        snapshot.entitlements.filter(\.active).map {
          ("\($0.appAccountToken)|\($0.entitlement)", $0)
        },
        uniquingKeysWith: { first, _ in first })
    }
    let (old, new) = (active(before), active(after))
    var changes: [AccountChange] = []
    for key in Set(old.keys).union(new.keys).sorted() {
      switch (old[key], new[key]) {
      case (nil, let granted?):
        changes.append(
          .init(
            .entitlementGranted, account: granted.appAccountToken, subject: granted.entitlement,
            new: text(granted.expiresDate)))
      case (let revoked?, nil):
        changes.append(
          .init(.entitlementRevoked, account: revoked.appAccountToken, subject: revoked.entitlement)
        )
      case (let was?, let now?) where was.expiresDate != now.expiresDate:
        changes.append(
          .init(
            .entitlementEndMoved, account: now.appAccountToken, subject: now.entitlement,
            old: text(was.expiresDate), new: text(now.expiresDate)))
      default: continue
      }
    }
    return changes
  }

  private static func subscriptions(_ before: LedgerSnapshot, _ after: LedgerSnapshot)
    -> [AccountChange]
  {
    var changes: [AccountChange] = []
    for (was, now) in pairs(before, after) {
      changes += statusChanges(was, now)
      if let was, let off = was.autoRenewStatus, let on = now.autoRenewStatus, off != on {
        changes.append(
          .init(
            on == 1 ? .autoRenewTurnedOn : .autoRenewTurnedOff, account: now.appAccountToken,
            subject: now.originalTransactionId))
      }
      changes += priceIncreaseChanges(was, now)
      changes += planChanges(was, now)
      if let was, was.transactionId == now.transactionId,
        let end = was.expiresDate, let extended = now.expiresDate, extended > end, now.status == 1
      {
        changes.append(
          .init(
            .renewalExtended, account: now.appAccountToken, subject: now.originalTransactionId,
            old: text(end), new: text(extended)))
      }
    }
    return changes
  }

  /// A commitment the customer cancelled inside (it still bills and entitles until its end,
  /// given in `new`), or renews again; the seats of a group subscription changing (total
  /// seats in force, as `old` and `new`).
  private static func planChanges(_ was: SubscriptionView?, _ now: SubscriptionView)
    -> [AccountChange]
  {
    guard let was else { return [] }
    var changes: [AccountChange] = []
    let (before, after) = (
      was.billingPlan?.cancelledInsideCommitment, now.billingPlan?.cancelledInsideCommitment
    )
    if before == false, after == true {
      changes.append(
        .init(
          .commitmentCancelled, account: now.appAccountToken, subject: now.originalTransactionId,
          new: text(now.billingPlan?.commitmentExpiresDate)))
    }
    if before == true, after == false {
      changes.append(
        .init(.commitmentResumed, account: now.appAccountToken, subject: now.originalTransactionId))
    }
    if let old = was.seats?.total, let new = now.seats?.total, old != new {
      changes.append(
        .init(
          .seatsChanged, account: now.appAccountToken, subject: now.originalTransactionId,
          old: String(old), new: String(new)))
    }
    return changes
  }

  /// Apple's `priceIncreaseStatus` 0 is a price increase the customer has not answered; 1
  /// after 0 is their consent (or one that needed none).
  private static func priceIncreaseChanges(_ was: SubscriptionView?, _ now: SubscriptionView)
    -> [AccountChange]
  {
    let (old, new) = (was?.priceIncreaseStatus, now.priceIncreaseStatus)
    let kind: AccountChange.Kind? =
      new == 0 && old != 0
      ? .priceIncreasePending
      : old == 0 && new == 1 ? .priceIncreaseAccepted : nil
    return kind.map {
      [AccountChange($0, account: now.appAccountToken, subject: now.originalTransactionId)]
    } ?? []
  }

  /// Status 3 (billing retry) and 4 (grace period) are billing problems; 4 is also a grace
  /// period.
  private static func statusChanges(_ was: SubscriptionView?, _ now: SubscriptionView)
    -> [AccountChange]
  {
    let (old, new) = (was?.status, now.status)
    guard old != new else { return [] }
    func change(_ kind: AccountChange.Kind) -> AccountChange {
      .init(kind, account: now.appAccountToken, subject: now.originalTransactionId)
    }
    var changes = [
      AccountChange(
        .subscriptionStatusChanged, account: now.appAccountToken,
        subject: now.originalTransactionId, old: old.map(String.init), new: String(new))
    ]
    let problem: Set<Int32> = [3, 4]
    let hadProblem = old.map(problem.contains) ?? false
    if !hadProblem, problem.contains(new) { changes.append(change(.billingProblemStarted)) }
    if hadProblem, new == 1 { changes.append(change(.billingProblemResolved)) }
    if old != 4, new == 4 { changes.append(change(.gracePeriodStarted)) }
    if old == 4, new != 4 { changes.append(change(.gracePeriodEnded)) }
    return changes
  }

  private static func refunds(_ before: LedgerSnapshot, _ after: LedgerSnapshot)
    -> [AccountChange]
  {
    let old = Dictionary(
      before.revocations.map { ($0.transactionId, $0) }, uniquingKeysWith: { a, _ in a })
    var changes: [AccountChange] = []
    for now in after.revocations.sorted(by: { $0.transactionId < $1.transactionId })
    where now.revocationType != "FAMILY_REVOKE" {
      let was = old[now.transactionId]
      if !now.reversed, was == nil || was?.reversed == true {
        changes.append(.init(.refunded, account: nil, subject: now.transactionId))
      }
      if now.reversed, was?.reversed == false {
        changes.append(.init(.refundReversed, account: nil, subject: now.transactionId))
      }
    }
    return changes
  }

  private static func balances(_ before: LedgerSnapshot, _ after: LedgerSnapshot)
    -> [AccountChange]
  {
    func keyed(_ snapshot: LedgerSnapshot) -> [String: ConsumableView] {
      Dictionary(
        snapshot.consumables.map { ("\($0.appAccountToken ?? "")|\($0.productId)", $0) },
        uniquingKeysWith: { a, _ in a })
    }
    let (old, new) = (keyed(before), keyed(after))
    return Set(old.keys).union(new.keys).sorted().compactMap { key in
      let (was, now) = (old[key]?.balance ?? 0, new[key]?.balance ?? 0)
      guard was != now, let view = new[key] ?? old[key] else { return nil }
      return .init(
        .balanceChanged, account: view.appAccountToken, subject: view.productId,
        old: String(was), new: String(now))
    }
  }

  private static func text(_ time: Timestamp?) -> String? {
    time.map { String($0.milliseconds) }
  }
}
