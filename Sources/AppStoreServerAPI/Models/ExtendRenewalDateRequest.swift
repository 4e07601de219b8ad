import StoreLedgerCore

/// The body of Extend a Subscription Renewal Date.
public struct ExtendRenewalDateRequest: Hashable, Sendable, Codable {
  /// 1 to 90.
  public var extendByDays: Int32?
  /// 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.
  public var extendReasonCode: Int32?
  /// Unique per request, at most 128 characters.
  public var requestIdentifier: String?

  public init(
    extendByDays: Int32? = nil, extendReasonCode: Int32? = nil, requestIdentifier: String? = nil
  ) {
    self.extendByDays = extendByDays
    self.extendReasonCode = extendReasonCode
    self.requestIdentifier = requestIdentifier
  }

  /// Apple's checks of the body, in its order.
  public func validated() throws(APIErrorResponse.Failure) -> (
    days: Int32, reason: Int32, id: String
  ) {
    guard let days = extendByDays, (1...90).contains(days) else {
      throw .init(.invalidExtendByDays, "extendByDays must be 1 to 90")
    }
    guard let reason = extendReasonCode, (0...3).contains(reason) else {
      throw .init(.invalidExtendReasonCode, "extendReasonCode must be 0 to 3")
    }
    guard let id = requestIdentifier, !id.isEmpty, id.count <= 128 else {
      throw .init(.invalidRequestIdentifier, "requestIdentifier must be 1 to 128 characters")
    }
    return (days, reason, id)
  }
}
