/// The decoded `signedPayload` Apple posts to a Retention Messaging real-time endpoint.
public struct DecodedRealtimeRequestBody: Hashable, Sendable, Codable {
  public var originalTransactionId: String?
  public var appAppleId: Int64?
  public var productId: String?
  public var userLocale: String?
  public var requestIdentifier: String?
  public var signedDate: Timestamp?
  public var environment: AppStoreEnvironment?

  public init() {}
}
