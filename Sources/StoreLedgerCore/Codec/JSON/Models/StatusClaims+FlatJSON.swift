/// A stored status read without `Decodable` (see FlatJSONObjectDecodable).
extension StatusClaims: FlatJSONObjectDecodable {
  private enum Keys {
    static let originalTransactionId = JSONMemberName("originalTransactionId")
    static let subscriptionGroupIdentifier = JSONMemberName("subscriptionGroupIdentifier")
    static let status = JSONMemberName("status")
    static let signedTransactionInfo = JSONMemberName("signedTransactionInfo")
    static let signedRenewalInfo = JSONMemberName("signedRenewalInfo")
  }

  init(flat object: JSONObjectReader) throws {
    guard let id = try object.string(Keys.originalTransactionId) else {
      throw JSONObjectReader.Mismatch()
    }
    self.init(
      originalTransactionId: id,
      subscriptionGroupIdentifier: try object.string(Keys.subscriptionGroupIdentifier),
      status: try object.enumeration(Keys.status),
      transaction: try object.object(Keys.signedTransactionInfo),
      renewalInfo: try object.object(Keys.signedRenewalInfo))
  }
}
