import StoreLedgerCore

/// The query of Get Transaction History (v2): filters and sort, without the paging
/// `revision`. Apple pages with the same query on every call, so it is one value.
public struct TransactionHistoryRequest: Hashable, Sendable {
  /// `productType` values of the query (not the transaction's `type` spellings).
  public enum ProductType: String, Hashable, Sendable, CaseIterable {
    case autoRenewable = "AUTO_RENEWABLE"
    case nonRenewable = "NON_RENEWABLE"
    case consumable = "CONSUMABLE"
    case nonConsumable = "NON_CONSUMABLE"
  }

  public enum Order: String, Hashable, Sendable {
    case ascending = "ASCENDING"
    case descending = "DESCENDING"
  }

  /// `purchaseDate >= startDate`.
  public var startDate: Timestamp?
  /// `purchaseDate < endDate`.
  public var endDate: Timestamp?
  public var productIds: [String] = []
  public var productTypes: [ProductType] = []
  public var sort: Order = .ascending
  public var subscriptionGroupIdentifiers: [String] = []
  public var inAppOwnershipType: InAppOwnershipType?
  /// Only revoked (true), only not revoked (false), or both (nil).
  public var revoked: Bool?

  public init() {}

  /// The query string's pairs, repeatable keys repeated, in a fixed order.
  public var queryItems: [(name: String, value: String)] {
    var items: [(String, String)] = []
    if let startDate { items.append(("startDate", String(startDate.milliseconds))) }
    if let endDate { items.append(("endDate", String(endDate.milliseconds))) }
    items += productIds.map { ("productId", $0) }
    items += productTypes.map { ("productType", $0.rawValue) }
    if sort != .ascending { items.append(("sort", sort.rawValue)) }
    items += subscriptionGroupIdentifiers.map { ("subscriptionGroupIdentifier", $0) }
    if let inAppOwnershipType { items.append(("inAppOwnershipType", inAppOwnershipType.rawValue)) }
    if let revoked { items.append(("revoked", revoked ? "true" : "false")) }
    return items
  }

  /// Reads a query as Apple does; the first bad parameter is the error. `revision` and
  /// unknown parameters are left to the caller.
  public init(queryItems: [(name: String, value: String)]) throws(APIErrorResponse.Failure) {
    for (name, value) in queryItems {
      try read(name, value)
    }
    if let startDate, let endDate, startDate >= endDate {
      throw .init(.invalidEndDate, "endDate must be after startDate")
    }
  }

  private mutating func read(_ name: String, _ value: String) throws(APIErrorResponse.Failure) {
    switch name {
    case "startDate":
      guard let ms = Int64(value), ms >= 0 else { throw .init(.invalidStartDate, "bad startDate") }
      startDate = Timestamp(milliseconds: ms)
    case "endDate":
      guard let ms = Int64(value), ms >= 0 else { throw .init(.invalidEndDate, "bad endDate") }
      endDate = Timestamp(milliseconds: ms)
    case "productId":
      guard !value.isEmpty else { throw .init(.invalidProductId, "empty productId") }
      productIds.append(value)
    case "productType":
      guard let type = ProductType(rawValue: value) else {
        throw .init(.invalidProductType, "bad productType")
      }
      productTypes.append(type)
    case "sort":
      guard let order = Order(rawValue: value) else { throw .init(.invalidSort, "bad sort") }
      sort = order
    case "subscriptionGroupIdentifier":
      guard !value.isEmpty else {
        throw .init(.invalidSubscriptionGroupIdentifier, "empty subscriptionGroupIdentifier")
      }
      subscriptionGroupIdentifiers.append(value)
    case "inAppOwnershipType":
      let type = InAppOwnershipType(rawValue: value)
      guard InAppOwnershipType.knownValues.contains(type) else {
        throw .init(.invalidInAppOwnershipType, "bad inAppOwnershipType")
      }
      inAppOwnershipType = type
    case "revoked", "excludeRevoked":
      // Any letter case: Apple's Python library sends `False`, and Apple answers it.
      guard let flag = Bool(value.lowercased()) else {
        throw .init(name == "revoked" ? .invalidRevoked : .invalidExcludeRevoked, "bad \(name)")
      }
      revoked = name == "revoked" ? flag : (flag ? false : revoked)
    default: break
    }
  }

  /// Whether `transaction` passes every filter (values of one key OR-ed, keys AND-ed).
  public func admits(_ transaction: JWSTransactionDecodedPayload) -> Bool {
    let purchased = transaction.purchaseDate ?? Timestamp(milliseconds: 0)
    if let startDate, purchased < startDate { return false }
    if let endDate, purchased >= endDate { return false }
    if !productIds.isEmpty, !productIds.contains(transaction.productId ?? "") { return false }
    if !productTypes.isEmpty, !productTypes.contains(where: { $0.matches(transaction.type) }) {
      return false
    }
    if !subscriptionGroupIdentifiers.isEmpty,
      !subscriptionGroupIdentifiers.contains(transaction.subscriptionGroupIdentifier ?? "")
    {
      return false
    }
    if let inAppOwnershipType, transaction.inAppOwnershipType != inAppOwnershipType {
      return false
    }
    if let revoked, (transaction.revocationDate != nil) != revoked { return false }
    return true
  }
}

extension TransactionHistoryRequest.ProductType {
  func matches(_ type: StoreLedgerCore.ProductType?) -> Bool {
    switch self {
    case .autoRenewable: type == .autoRenewableSubscription
    case .nonRenewable: type == .nonRenewingSubscription
    case .consumable: type == .consumable
    case .nonConsumable: type == .nonConsumable
    }
  }
}
