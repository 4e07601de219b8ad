import AppStoreServerAPI
import Foundation
import StoreLedgerCore

extension AppleActions {
  /// Which offers the account may still get, from what Apple signed into its purchases and
  /// renewal infos (see ``OfferEligibility``).
  public func offerEligibility(for appAccountToken: String) async throws(LedgerError)
    -> OfferEligibility
  {
    var transactions: [OfferEligibility.Signed<JWSTransactionDecodedPayload>] = []
    var renewals: [OfferEligibility.Signed<JWSRenewalInfoDecodedPayload>] = []
    for recorded in try await reader.recordedEvents(
      of: try AppAccountToken.checked(appAccountToken))
    {
      let claims: AppleClaims?
      do {
        claims = try EventCodec.claims(of: recorded)
      } catch {
        throw LedgerError(.databaseRejected, "a stored event's claims do not decode")
      }
      let key = recorded.idempotencyKey
      switch claims {
      case .notification(let received)?:
        if let transaction = received.transaction { transactions.append((transaction, key)) }
        if let renewal = received.renewalInfo { renewals.append((renewal, key)) }
      case .transaction(let observed)?: transactions.append((observed.transaction, key))
      case .renewalInfo(let observed)?: renewals.append((observed.renewalInfo, key))
      case .status(let observed)?:
        if let transaction = observed.transaction { transactions.append((transaction, key)) }
        if let renewal = observed.renewalInfo { renewals.append((renewal, key)) }
      case nil: continue
      }
    }
    return OfferEligibility.evaluate(transactions: transactions, renewals: renewals)
  }

  /// A promotional offer signature for the account, signed with the In-App Purchase `key`;
  /// the signing (not the signature) is recorded in the log (stream `offers:<token>`).
  public func signPromotionalOffer(
    for appAccountToken: String, productId: String, offerIdentifier: String, key: APIKey,
    at time: Date = Date()
  ) async throws(LedgerError) -> PromotionalOfferSignature {
    let token = try AppAccountToken.checked(appAccountToken)
    try Self.checkOffer(productId, offerIdentifier)
    let signature: PromotionalOfferSignature
    do {
      signature = try PromotionalOfferSignature.sign(
        productId: productId, offerIdentifier: offerIdentifier, appAccountToken: token, key: key,
        timestamp: time)
    } catch {
      throw LedgerError(.invalidRequest, "the key cannot sign")
    }
    struct Signed: Encodable {
      let productId: String
      let offerIdentifier: String
      let keyId: String
      let nonce: String
      let timestamp: Int64
    }
    let stream = "offers:\(token)"
    try await recordAction(
      EventTypes.promotionalOfferSigned, member: "promotionalOfferSigned",
      body: Signed(
        productId: productId, offerIdentifier: offerIdentifier, keyId: signature.keyId,
        nonce: signature.nonce, timestamp: signature.timestamp),
      stream: stream, key: "\(stream):\(signature.nonce)")
    return signature
  }
}

extension AppleActions {
  /// A promotional offer signature in Apple's JWS form (StoreKit 2), signed with the In-App
  /// Purchase `key` for the account's customer: `transactionId` defaults to the account's
  /// app download (appTransactionId) or newest transaction. The signing is recorded (stream
  /// `offers:<token>`), the JWS is not.
  public func signPromotionalOfferJWS(
    for appAccountToken: String, productId: String, offerIdentifier: String,
    transactionId: String? = nil, key: APIKey, at time: Date = Date()
  ) async throws(LedgerError) -> AppStoreRequestSignature {
    let token = try AppAccountToken.checked(appAccountToken)
    try Self.checkOffer(productId, offerIdentifier)
    var customer = transactionId
    if customer == nil { customer = try await customerTransactionId(of: token) }
    let signature: AppStoreRequestSignature
    do {
      signature = try AppStoreRequestSignature.promotionalOffer(
        productId: productId, offerIdentifier: offerIdentifier, transactionId: customer, key: key,
        at: time)
    } catch {
      throw LedgerError(.invalidRequest, "the key cannot sign")
    }
    try await recordSigning(signature, of: token, productId: productId, offer: offerIdentifier)
    return signature
  }

  /// An introductory offer eligibility signature for `productId`, from the eligibility the
  /// ledger computes (``offerEligibility(for:)``): eligible unless the account had an
  /// introductory offer in the product's subscription group. The group is the one
  /// `subscriptionGroupIdentifier` names, else the one the log has seen the product in; an
  /// account with no purchase in any group is eligible.
  public func signIntroductoryOfferEligibility(
    for appAccountToken: String, productId: String, subscriptionGroupIdentifier: String? = nil,
    transactionId: String? = nil, key: APIKey, at time: Date = Date()
  ) async throws(LedgerError) -> AppStoreRequestSignature {
    let token = try AppAccountToken.checked(appAccountToken)
    try Self.checkOffer(productId, "introductory")
    let eligibility = try await offerEligibility(for: token)
    let group =
      subscriptionGroupIdentifier
      ?? eligibility.purchases.first { $0.productId == productId }?.subscriptionGroupIdentifier
    let allowed: Bool
    if let group {
      allowed =
        eligibility.groups.first { $0.subscriptionGroupIdentifier == group }?
        .introductoryOfferEligible ?? true
    } else if eligibility.groups.isEmpty {
      allowed = true
    } else {
      throw LedgerError(
        .notFound,
        "the ledger has not seen \(productId) bought; name its subscription group (subscriptionGroupIdentifier)"
      )
    }
    var found = transactionId
    if found == nil { found = try await customerTransactionId(of: token) }
    guard let customer = found else {
      throw LedgerError(
        .notFound,
        "the account has no transaction yet; give the customer's appTransactionId as transactionId")
    }
    let signature: AppStoreRequestSignature
    do {
      signature = try AppStoreRequestSignature.introductoryOfferEligibility(
        productId: productId, allowIntroductoryOffer: allowed, transactionId: customer, key: key,
        at: time)
    } catch {
      throw LedgerError(.invalidRequest, "the key cannot sign")
    }
    try await recordSigning(
      signature, of: token, productId: productId, offer: nil, allowed: allowed)
    return signature
  }

  private static func checkOffer(_ productId: String, _ offer: String) throws(LedgerError) {
    guard !productId.isEmpty, productId.count <= 200, !offer.isEmpty, offer.count <= 200 else {
      throw LedgerError(.invalidRequest, "a signature needs a product id and an offer id")
    }
  }

  /// The account's app download, else its newest transaction's id; nil for an account with
  /// no purchase.
  private func customerTransactionId(of token: String) async throws(LedgerError) -> String? {
    let view = try await reader.view(of: token)
    let mine = view.state.transactions.values.filter {
      view.accountToken(ofChain: $0.facts.originalTransactionId, records: [$0]) == token
    }
    if let download = mine.compactMap(\.facts.appTransactionId).min() { return download }
    return mine.max {
      ($0.facts.purchaseDate?.milliseconds ?? 0) < ($1.facts.purchaseDate?.milliseconds ?? 0)
    }?
    .facts.transactionId
  }

  private func recordSigning(
    _ signature: AppStoreRequestSignature, of token: String, productId: String, offer: String?,
    allowed: Bool? = nil
  ) async throws(LedgerError) {
    struct Signed: Encodable {
      let audience: String
      let productId: String
      let offerIdentifier: String?
      let allowIntroductoryOffer: Bool?
      let nonce: String
      let issuedAt: Int64
    }
    let stream = "offers:\(token)"
    try await recordAction(
      EventTypes.requestSigned, member: "requestSigned",
      body: Signed(
        audience: signature.audience, productId: productId, offerIdentifier: offer,
        allowIntroductoryOffer: allowed, nonce: signature.nonce, issuedAt: signature.issuedAt),
      stream: stream, key: "\(stream):\(signature.nonce)")
  }

  /// Finish Transaction at Apple, then recorded once per transaction (stream
  /// `finished:<transactionId>`): for backends that deliver content their app did not finish.
  public func finishTransaction(_ transactionId: String, apple: AppStoreServerAPIClient)
    async throws(LedgerError)
  {
    guard !transactionId.isEmpty, transactionId.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
      throw LedgerError(.invalidRequest, "a transactionId is Apple's numeric id")
    }
    do {
      try await apple.finishTransaction(transactionId)
    } catch {
      throw LedgerError.apple(error, doing: "finishing the transaction")
    }
    struct Finished: Encodable {
      let transactionId: String
      let finishedAt: Int64
    }
    let stream = "finished:\(transactionId)"
    try await recordAction(
      EventTypes.transactionFinished, member: "transactionFinished",
      body: Finished(
        transactionId: transactionId,
        finishedAt: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))),
      stream: stream, key: stream)
  }
}
