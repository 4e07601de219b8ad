import StoreLedgerCore

/// The body of Extend Subscription Renewal Dates for All Active Subscribers.
public struct MassExtendRenewalDateRequest: Hashable, Sendable, Codable {
  public var requestIdentifier: String?
  /// 1 to 90.
  public var extendByDays: Int32?
  /// 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue or outage.
  public var extendReasonCode: Int32?
  public var productId: String?
  /// ISO 3166-1 alpha-3 codes; absent for every storefront.
  public var storefrontCountryCodes: [String]?

  public init(
    requestIdentifier: String? = nil, extendByDays: Int32? = nil, extendReasonCode: Int32? = nil,
    productId: String? = nil, storefrontCountryCodes: [String]? = nil
  ) {
    self.requestIdentifier = requestIdentifier
    self.extendByDays = extendByDays
    self.extendReasonCode = extendReasonCode
    self.productId = productId
    self.storefrontCountryCodes = storefrontCountryCodes
  }

  /// Apple's checks of the body, in its order.
  public func validated() throws(APIErrorResponse.Failure) -> (
    days: Int32, reason: Int32, id: String, productId: String, storefronts: [String]?
  ) {
    let (days, reason, id) = try ExtendRenewalDateRequest(
      extendByDays: extendByDays, extendReasonCode: extendReasonCode,
      requestIdentifier: requestIdentifier
    ).validated()
    guard let productId, !productId.isEmpty else {
      throw .init(.invalidProductId, "productId is required")
    }
    if let codes = storefrontCountryCodes {
      guard !codes.isEmpty else {
        throw .init(.invalidEmptyStorefrontCountryCodeList, "storefrontCountryCodes is empty")
      }
      guard
        codes.allSatisfy({
          $0.count == 3 && $0.unicodeScalars.allSatisfy { ("A"..."Z").contains($0) }
        })
      else { throw .init(.invalidStorefrontCountryCode, "a storefront code is not ISO alpha-3") }
    }
    return (days, reason, id, productId, storefrontCountryCodes)
  }
}
