/// What a customer may still get, decided from what Apple signed into the account's
/// purchases and renewal infos: an introductory offer in each subscription group where they
/// never had one, the win-back offers Apple's newest renewal info names, and what they paid
/// and under which offers before. Every answer names the events that decided it.
public struct OfferEligibility: Hashable, Sendable, Encodable {
  public struct Group: Hashable, Sendable, Encodable {
    public var subscriptionGroupIdentifier: String
    /// No transaction of the group was priced by an introductory offer.
    public var introductoryOfferEligible: Bool
    /// The introductory-offer purchases that end the eligibility (empty when eligible).
    public var introductoryOfferUsedIn: [String]
    /// `eligibleWinBackOfferIds` of the group's newest renewal info.
    public var winBackOfferIds: [String]
    /// The event that renewal info came in.
    public var winBackDecidedBy: String?
  }

  public struct Purchase: Hashable, Sendable, Encodable {
    public var transactionId: String
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    public var purchaseDate: Timestamp?
    /// Milliunits of `currency`.
    public var price: Int64?
    public var currency: String?
    public var offerType: OfferType?
    public var offerIdentifier: String?
    public var offerDiscountType: OfferDiscountType?
    /// The event holding the newest snapshot of the transaction.
    public var event: String?
  }

  public var groups: [Group]
  public var purchases: [Purchase]

  /// One signed snapshot and the event (its key) it came in.
  public typealias Signed<Payload> = (payload: Payload, event: String?)

  public static func evaluate(
    transactions: [Signed<JWSTransactionDecodedPayload>],
    renewals: [Signed<JWSRenewalInfoDecodedPayload>]
  ) -> OfferEligibility {
    let newest = newestSnapshots(transactions)
    let purchases = newest.map { transaction, event in
      Purchase(
        transactionId: transaction.transactionId ?? "", productId: transaction.productId,
        subscriptionGroupIdentifier: transaction.subscriptionGroupIdentifier,
        purchaseDate: transaction.purchaseDate, price: transaction.price,
        currency: transaction.currency, offerType: transaction.offerType,
        offerIdentifier: transaction.offerIdentifier,
        offerDiscountType: transaction.offerDiscountType, event: event)
    }.sorted {
      ($0.purchaseDate?.milliseconds ?? 0, $0.transactionId) < (
        $1.purchaseDate?.milliseconds ?? 0, $1.transactionId
      )
    }
    var groupOfChain: [String: String] = [:]
    for (transaction, _) in newest {
      if let group = transaction.subscriptionGroupIdentifier,
        let chain = transaction.originalTransactionId
      {
        groupOfChain[chain] = group
      }
    }
    let groups = Set(groupOfChain.values).sorted().map { group in
      let used = purchases.filter {
        $0.subscriptionGroupIdentifier == group && $0.offerType == .introductory
      }
      let renewal = renewals.filter {
        $0.payload.originalTransactionId.flatMap { groupOfChain[$0] } == group
      }.max {
        ($0.payload.signedDate?.milliseconds ?? .min)
          < ($1.payload.signedDate?.milliseconds ?? .min)
      }
      return Group(
        subscriptionGroupIdentifier: group, introductoryOfferEligible: used.isEmpty,
        introductoryOfferUsedIn: used.map(\.transactionId),
        winBackOfferIds: renewal?.payload.eligibleWinBackOfferIds ?? [],
        winBackDecidedBy: renewal?.event)
    }
    return OfferEligibility(groups: groups, purchases: purchases)
  }

  /// The newest-signed snapshot of each transaction.
  private static func newestSnapshots(_ all: [Signed<JWSTransactionDecodedPayload>])
    -> [Signed<JWSTransactionDecodedPayload>]
  {
    var newest: [String: Signed<JWSTransactionDecodedPayload>] = [:]
    for snapshot in all {
      guard let id = snapshot.payload.transactionId else { continue }
      if (newest[id]?.payload.signedDate?.milliseconds ?? .min)
        <= (snapshot.payload.signedDate?.milliseconds ?? .min)
      {
        newest[id] = snapshot
      }
    }
    return newest.keys.sorted().compactMap { newest[$0] }
  }
}
