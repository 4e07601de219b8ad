import StoreLedgerCore

/// The body of Claim Seat (API 1.23): a fresh `requestIdentifier` per claim, saved before the
/// call and sent again on a retry (Apple then answers with the same claim instead of taking a
/// second seat); `appTransactionId` links the member's Apple Account at once.
public struct ClaimSeatRequest: Hashable, Sendable, Codable {
  public var requestIdentifier: String
  public var appTransactionId: String?

  public init(requestIdentifier: String, appTransactionId: String? = nil) {
    self.requestIdentifier = requestIdentifier
    self.appTransactionId = appTransactionId
  }
}

/// The answer of Claim Seat: the claim's id (a UUID; a new one for every claim).
public struct ClaimSeatResponse: Hashable, Sendable, Codable {
  public var seatClaimId: String?

  public init(seatClaimId: String? = nil) {
    self.seatClaimId = seatClaimId
  }
}

/// The body of Associate Seat.
public struct AssociateSeatRequest: Hashable, Sendable, Codable {
  public var appTransactionId: String

  public init(appTransactionId: String) {
    self.appTransactionId = appTransactionId
  }
}

/// The answer of Get Seat Info. `assignedSeatClaimIds` can hold more ids than
/// `totalSeatCount` after a renewal with fewer seats (a renewal releases no claim).
public struct GetSeatInfoResponse: Hashable, Sendable, Codable {
  public var totalSeatCount: Int32?
  public var availableSeatCount: Int32?
  public var assignedSeatClaimIds: [String]?

  public init(
    totalSeatCount: Int32? = nil, availableSeatCount: Int32? = nil,
    assignedSeatClaimIds: [String]? = nil
  ) {
    self.totalSeatCount = totalSeatCount
    self.availableSeatCount = availableSeatCount
    self.assignedSeatClaimIds = assignedSeatClaimIds
  }
}

/// `groupType` of a customer group (API 1.22).
public struct GroupType: OpenEnumeration {
  public let rawValue: String
  public init(rawValue: String) { self.rawValue = rawValue }

  /// Volume Purchasing: Apple Business Manager or Apple School Manager.
  public static let organization = Self(rawValue: "ORGANIZATION")
  /// Group Purchases bought in the app.
  public static let consumer = Self(rawValue: "CONSUMER")
  public static let knownValues: [Self] = [.organization, .consumer]
}

/// One product a group gives the customer, with the customer's role in it (informational:
/// access is decided from transactions; only organization groups carry roles).
public struct RoleEntry: Hashable, Sendable, Codable {
  public var productId: String?
  /// `ADMIN`, `NONE`, or a value Apple adds later (kept raw).
  public var role: String?

  public init(productId: String? = nil, role: String? = nil) {
    self.productId = productId
    self.role = role
  }
}

/// One group of Get Customer Groups.
public struct GroupEntry: Hashable, Sendable, Codable {
  public var groupId: String?
  public var groupType: GroupType?
  public var roles: [RoleEntry]?

  public init(groupId: String? = nil, groupType: GroupType? = nil, roles: [RoleEntry]? = nil) {
    self.groupId = groupId
    self.groupType = groupType
    self.roles = roles
  }
}

/// The answer of Get Customer Groups.
public struct GetCustomerGroupsResponse: Hashable, Sendable, Codable {
  public var groups: [GroupEntry]?

  public init(groups: [GroupEntry]? = nil) {
    self.groups = groups
  }
}

/// One member of Get Group Members, by their download of the app.
public struct GroupMemberEntry: Hashable, Sendable, Codable {
  public var appTransactionId: String?

  public init(appTransactionId: String? = nil) {
    self.appTransactionId = appTransactionId
  }
}

/// A page of Get Group Members.
public struct GetGroupMembersResponse: Hashable, Sendable, Codable {
  public var members: [GroupMemberEntry]?
  public var hasMore: Bool?
  public var paginationToken: String?

  public init(
    members: [GroupMemberEntry]? = nil, hasMore: Bool? = nil, paginationToken: String? = nil
  ) {
    self.members = members
    self.hasMore = hasMore
    self.paginationToken = paginationToken
  }
}
