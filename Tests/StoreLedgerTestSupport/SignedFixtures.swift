import AppStoreVerification
import StoreLedgerCore

/// Apple-shaped signed data for the Sandbox app `com.example.app`, signed by a test PKI.
public struct SignedFixtures: Sendable {
  public static let bundleId = "com.example.app"
  public let pki: TestPKI

  public init(pki: TestPKI) {
    self.pki = pki
  }

  /// `transaction` as the Sandbox app's.
  public static func sandbox(_ transaction: JWSTransactionDecodedPayload)
    -> JWSTransactionDecodedPayload
  {
    var copy = transaction
    copy.environment = .sandbox
    copy.bundleId = bundleId
    return copy
  }

  public func transaction(_ transaction: JWSTransactionDecodedPayload) throws -> String {
    try pki.sign(Self.sandbox(transaction))
  }

  /// A V2 notification's `signedPayload` carrying `transaction` (and `renewal`), signed at
  /// the transaction's `signedDate` unless `signed` says otherwise; `amend` changes the body
  /// before it is signed (a second body object, as an attacker or a future Apple would add).
  public func notification(
    _ type: NotificationType, _ subtype: NotificationSubtype? = nil, uuid: String,
    transaction: JWSTransactionDecodedPayload, renewal: JWSRenewalInfoDecodedPayload? = nil,
    signed: Timestamp? = nil, environment: AppStoreEnvironment = .sandbox,
    bundleId: String = bundleId,
    amend: (inout ResponseBodyV2DecodedPayload) -> Void = { _ in }
  ) throws -> String {
    var body = ResponseBodyV2DecodedPayload()
    body.notificationType = type
    body.subtype = subtype
    body.notificationUUID = uuid
    body.version = "2.0"
    body.signedDate = signed ?? transaction.signedDate
    var data = NotificationData()
    data.bundleId = bundleId
    data.environment = environment
    var signedTransaction = Self.sandbox(transaction)
    signedTransaction.environment = environment
    signedTransaction.bundleId = bundleId
    data.signedTransactionInfo = try pki.sign(signedTransaction)
    if var renewal {
      renewal.environment = environment
      data.signedRenewalInfo = try pki.sign(renewal)
    }
    body.data = data
    amend(&body)
    return try pki.sign(body)
  }
}
