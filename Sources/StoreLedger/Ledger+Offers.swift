import AppStoreServerAPI
import Foundation
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// Which offers the account may still get, from what Apple signed into its purchases and
  /// renewal infos (see ``OfferEligibility``).
  public func offerEligibility(for appAccountToken: String) async throws(LedgerError)
    -> OfferEligibility
  {
    var transactions: [OfferEligibility.Signed<JWSTransactionDecodedPayload>] = []
    var renewals: [OfferEligibility.Signed<JWSRenewalInfoDecodedPayload>] = []
    for recorded in try await events(for: appAccountToken) {
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
    let token = try Self.canonical(appAccountToken)
    guard !productId.isEmpty, productId.count <= 200, !offerIdentifier.isEmpty,
      offerIdentifier.count <= 200
    else {
      throw LedgerError(.invalidRequest, "a signature needs a product id and an offer id")
    }
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
      "ledger.promotional_offer_signed.v1", member: "promotionalOfferSigned",
      body: Signed(
        productId: productId, offerIdentifier: offerIdentifier, keyId: signature.keyId,
        nonce: signature.nonce, timestamp: signature.timestamp),
      stream: stream, key: "\(stream):\(signature.nonce)")
    return signature
  }
}
