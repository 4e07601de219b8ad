/// A verified signed transaction seen outside a notification: forwarded by the app after a
/// purchase, or read from Get Transaction History / Get Transaction Info.
public struct SignedTransactionClaims: Hashable, Sendable {
  public static let eventType = EventTypes.transactionClaims

  public var transaction: JWSTransactionDecodedPayload
  /// The account the backend says made the purchase, for purchases signed without one.
  public var appAccountToken: String?

  public init(transaction: JWSTransactionDecodedPayload, appAccountToken: String? = nil) {
    self.transaction = transaction
    self.appAccountToken = appAccountToken
  }
}
