/// What the reducers need of a verified transaction seen outside a notification (forwarded by
/// the app, or read from the Server API): its facts and the account the backend named with it.
public struct SignedTransactionFacts: Hashable, Sendable, Codable {
  public static let eventType = EventTypes.transaction

  public var transaction: TransactionFacts
  /// The account the backend says made the purchase (lower case), for purchases signed
  /// without one.
  public var forwardedToken: String?

  public init(transaction: TransactionFacts, forwardedToken: String? = nil) {
    self.transaction = transaction
    self.forwardedToken = forwardedToken.flatMap {
      $0.isEmpty ? nil : AppAccountToken.normalized($0)
    }
  }

  private enum Keys: String, CodingKey { case transaction, forwardedToken }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Keys.self)
    self.init(
      transaction: try container.decode(TransactionFacts.self, forKey: .transaction),
      forwardedToken: try container.decodeIfPresent(String.self, forKey: .forwardedToken))
  }
}
