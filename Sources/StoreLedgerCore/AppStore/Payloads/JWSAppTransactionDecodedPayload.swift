/// A decoded signed app transaction: the customer's download of the app.
public struct JWSAppTransactionDecodedPayload: Hashable, Sendable, Codable {
  /// The environment (`Production`, `Sandbox`, `Xcode`).
  public var receiptType: AppStoreEnvironment?
  public var appAppleId: Int64?
  public var bundleId: String?
  public var applicationVersion: String?
  public var versionExternalIdentifier: Int64?
  /// Serves as the signing date when validating the certificate chain.
  public var receiptCreationDate: Timestamp?
  public var originalPurchaseDate: Timestamp?
  public var originalApplicationVersion: String?
  public var deviceVerification: String?
  public var deviceVerificationNonce: String?
  public var preorderDate: Timestamp?
  public var appTransactionId: String?
  public var originalPlatform: PurchasePlatform?

  public init() {}
}
