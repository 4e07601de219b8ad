import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StoreLedgerCore
import Synchronization

extension SimulatedAppStore {
  /// Set App Account Token: Apple's checks, then the token on the chain's current period and
  /// every later transaction.
  public func setAppAccountToken(_ originalTransactionId: String, _ token: String?)
    throws(APIErrorResponse.Failure)
  {
    try Self.checkIdentifier(originalTransactionId)
    guard let transaction = transaction(originalTransactionId),
      let customer = customer(of: originalTransactionId)
    else { throw .init(.originalTransactionIdNotFound, "original transaction id not found") }
    guard transaction.originalTransactionId == originalTransactionId else {
      throw .init(
        .transactionIdIsNotOriginalTransactionId, "the transaction id is not an original one")
    }
    if transaction.inAppOwnershipType == .familyShared {
      throw .init(.familyTransactionNotSupported, "family-shared transactions are not supported")
    }
    guard let token, let canonical = AppAccountToken.canonical(token) else {
      throw .init(.invalidAppAccountTokenUUID, "appAccountToken is not a UUID")
    }
    let chain = history(of: customer).map(\.payload).filter {
      $0.originalTransactionId == originalTransactionId && $0.isUpgraded != true
    }
    let current = chain.max(by: Self.boughtBefore)
    state.withLock {
      $0.tokensSet[originalTransactionId] = (
        canonical, current?.purchaseDate?.milliseconds ?? $0.now.milliseconds
      )
    }
    if let current { put(current, customer: customer) }
  }
}

extension SimulatedAppStore {
  /// The order id on the customer's receipt email for a purchase: ten upper-case letters and
  /// digits, fixed per transaction.
  public static func orderId(of transactionId: String) -> String {
    var digest = StableDigest()
    digest.add("order:" + transactionId)
    var value = digest.value
    let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
    return String(
      (0..<10).map { _ in
        defer { value /= UInt64(alphabet.count) }
        return alphabet[Int(value % UInt64(alphabet.count))]
      })
  }

  /// Look Up Order ID: the order's transactions signed now (`status` 0), or `status` 1 for an
  /// order Apple does not know. Apple offers it in Production only.
  public func lookUpOrder(_ orderId: String) throws(APIErrorResponse.Failure)
    -> OrderLookupResponse
  {
    guard !orderId.isEmpty, orderId.utf8.count <= 64,
      orderId.unicodeScalars.allSatisfy({ $0.isASCII && CharacterSet.alphanumerics.contains($0) })
    else { throw .init(.generalBadRequest, "invalid order id") }
    let ids = state.withLock { state in
      state.transactions.keys.filter { Self.orderId(of: $0) == orderId }.sorted()
    }
    var response = OrderLookupResponse()
    response.status = ids.isEmpty ? .invalid : .valid
    response.signedTransactions = ids.isEmpty ? nil : ids.compactMap(signedTransaction)
    return response
  }
}

extension SimulatedAppStore {
  /// The first transaction the store holds for `customer` (what an old receipt names).
  public func firstTransactionId(of customer: String) -> String? {
    history(of: customer).first?.payload.transactionId
  }
}

extension SimulatedAppStore {
  /// Get App Transaction Info: the customer's app download, signed now.
  public func appTransactionInfo(_ anyTransactionId: String) throws(APIErrorResponse.Failure)
    -> AppTransactionInfoResponse
  {
    try Self.checkIdentifier(anyTransactionId)
    guard let customer = customer(of: anyTransactionId),
      let first = history(of: customer).map(\.payload).min(by: Self.boughtBefore)
    else { throw .init(.transactionIdNotFound, "transaction id not found") }
    var download = JWSAppTransactionDecodedPayload()
    download.receiptType = app.environment
    download.appAppleId = app.environment == .production ? app.appAppleId : nil
    download.bundleId = app.bundleId
    download.applicationVersion = app.bundleVersion
    download.originalApplicationVersion = "1.0.0"
    download.originalPurchaseDate = first.purchaseDate
    download.receiptCreationDate = now
    // The download the customer's transactions name (a seat member's own, for its
    // transactions), so that the id leads back to them.
    download.appTransactionId =
      transaction(anyTransactionId)?.appTransactionId ?? first.appTransactionId
      ?? Self.appTransactionId(of: customer)
    download.originalPlatform = PurchasePlatform(rawValue: "iOS")
    var response = AppTransactionInfoResponse()
    response.signedAppTransactionInfo = try? signer.sign(download)
    return response
  }
}
