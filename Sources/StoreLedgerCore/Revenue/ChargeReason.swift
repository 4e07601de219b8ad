/// Why a subscription's transaction was charged, from Apple's own fields: a renewal is only
/// what Apple signed as one (`transactionReason = RENEWAL`); every other charge is a purchase
/// of some kind. Revenue entries and the change feed's money read it here, so both count
/// renewals the same way (projections/revenue.md, K1–K7).
public enum ChargeReason: String, Hashable, Sendable, Codable, CaseIterable {
  /// The chain's first purchase.
  case initial
  /// `transactionReason = RENEWAL`: the App Store renewed (a downgrade or a crossgrade to
  /// another duration takes effect this way, with the new product).
  case renewal
  /// A purchase that replaced a period of the chain inside it: an upgrade or a crossgrade to
  /// the same duration (Apple signs both as `UPGRADE`).
  case upgrade
  /// A purchase after the chain had lapsed.
  case resubscribe
  /// A resubscription under a win-back offer (`offerType` 4).
  case winBack = "win_back"
  /// Seats added in the middle of a period (`additionalTransactionReason = SEAT_ADDITION`).
  case seatAddition = "seat_addition"

  /// The reason of `record` among its chain's `tenures` (``SubscriptionChain/tenures(of:)``).
  /// A row stored before facts kept `transactionReason` is a renewal when it follows the
  /// chain's earlier purchases without replacing one (as those rows were always counted).
  public static func of(
    _ record: TransactionRecord, among tenures: [SubscriptionChain.Tenure]
  ) -> ChargeReason {
    let facts = record.facts
    let bought = facts.purchaseDate?.milliseconds ?? .min
    let earlier = tenures.filter {
      $0.record.facts.transactionId != facts.transactionId && $0.start.milliseconds < bought
    }
    if record.isSeatAddition,
      earlier.contains(where: {
        $0.record.isSeatAddition && $0.record.facts.expiresDate == facts.expiresDate
      })
    {
      return .seatAddition
    }
    if facts.transactionReason == .renewal { return .renewal }
    guard !earlier.isEmpty else { return .initial }
    if tenures.contains(where: {
      $0.endedByUpgrade && $0.replacedBy?.facts.transactionId == facts.transactionId
    }) {
      return .upgrade
    }
    guard facts.transactionReason != nil else { return .renewal }
    return facts.terms?.offerType == .winBack ? .winBack : .resubscribe
  }

  /// The revenue entry a charge of this reason is.
  public var entryKind: RevenueEntry.Kind {
    switch self {
    case .renewal: .renewal
    case .seatAddition: .seatAddition
    case .initial, .upgrade, .resubscribe, .winBack: .purchase
    }
  }
}
