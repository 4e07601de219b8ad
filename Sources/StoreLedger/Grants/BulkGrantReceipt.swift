/// What a bulk grant did: the grants it made, those an earlier run with the same key had made
/// already, and the accounts it could not grant to, each with why.
public struct BulkGrantReceipt: Sendable, Hashable, Encodable {
  public struct Refusal: Sendable, Hashable, Encodable {
    public var appAccountToken: String
    public var code: String
    public var message: String
  }

  public var idempotencyKey: String
  public var granted: [SupportGrantStatus]
  public var alreadyGranted: [SupportGrantStatus]
  public var refused: [Refusal]
}
