import StoreLedgerCore

/// `errorCode` of an App Store Server API error body.
///
/// Open: an unknown code keeps its raw value. ``isRetryable`` follows Apple's guidance: retry
/// rate limits, internal errors and the `…Retryable` not-found errors; others are permanent.
public struct APIErrorCode: OpenEnumeration {
  public let rawValue: Int64

  public init(rawValue: Int64) {
    self.rawValue = rawValue
  }

  public static let generalBadRequest = Self(rawValue: 4_000_000)
  public static let invalidAppIdentifier = Self(rawValue: 4_000_002)
  public static let invalidRequestRevision = Self(rawValue: 4_000_005)
  public static let invalidTransactionId = Self(rawValue: 4_000_006)
  public static let invalidOriginalTransactionId = Self(rawValue: 4_000_008)
  public static let invalidExtendByDays = Self(rawValue: 4_000_009)
  public static let invalidExtendReasonCode = Self(rawValue: 4_000_010)
  public static let invalidRequestIdentifier = Self(rawValue: 4_000_011)
  public static let startDateTooFarInPast = Self(rawValue: 4_000_012)
  public static let startDateAfterEndDate = Self(rawValue: 4_000_013)
  public static let invalidPaginationToken = Self(rawValue: 4_000_014)
  public static let invalidStartDate = Self(rawValue: 4_000_015)
  public static let invalidEndDate = Self(rawValue: 4_000_016)
  public static let paginationTokenExpired = Self(rawValue: 4_000_017)
  public static let invalidNotificationType = Self(rawValue: 4_000_018)
  public static let multipleFiltersSupplied = Self(rawValue: 4_000_019)
  public static let invalidTestNotificationToken = Self(rawValue: 4_000_020)
  public static let invalidSort = Self(rawValue: 4_000_021)
  public static let invalidProductType = Self(rawValue: 4_000_022)
  public static let invalidProductId = Self(rawValue: 4_000_023)
  public static let invalidSubscriptionGroupIdentifier = Self(rawValue: 4_000_024)
  public static let invalidExcludeRevoked = Self(rawValue: 4_000_025)
  public static let invalidInAppOwnershipType = Self(rawValue: 4_000_026)
  public static let invalidEmptyStorefrontCountryCodeList = Self(rawValue: 4_000_027)
  public static let invalidStorefrontCountryCode = Self(rawValue: 4_000_028)
  public static let invalidRevoked = Self(rawValue: 4_000_030)
  public static let invalidStatus = Self(rawValue: 4_000_031)
  public static let invalidAccountTenure = Self(rawValue: 4_000_032)
  public static let invalidAppAccountToken = Self(rawValue: 4_000_033)
  public static let invalidConsumptionStatus = Self(rawValue: 4_000_034)
  public static let invalidCustomerConsented = Self(rawValue: 4_000_035)
  public static let invalidDeliveryStatus = Self(rawValue: 4_000_036)
  public static let invalidLifetimeDollarsPurchased = Self(rawValue: 4_000_037)
  public static let invalidLifetimeDollarsRefunded = Self(rawValue: 4_000_038)
  public static let invalidPlatform = Self(rawValue: 4_000_039)
  public static let invalidPlayTime = Self(rawValue: 4_000_040)
  public static let invalidSampleContentProvided = Self(rawValue: 4_000_041)
  public static let invalidUserStatus = Self(rawValue: 4_000_042)
  public static let invalidRefundPreference = Self(rawValue: 4_000_044)
  public static let invalidTransactionTypeNotSupported = Self(rawValue: 4_000_047)
  public static let appTransactionIdNotSupported = Self(rawValue: 4_000_048)
  public static let invalidAppAccountTokenUUID = Self(rawValue: 4_000_183)
  public static let familyTransactionNotSupported = Self(rawValue: 4_000_185)
  public static let transactionIdIsNotOriginalTransactionId = Self(rawValue: 4_000_187)
  public static let consumptionPercentageAutoRenewable = Self(rawValue: 4_000_209)
  // Retention Messaging API.
  public static let invalidImage = Self(rawValue: 4_000_161)
  public static let headerTooLong = Self(rawValue: 4_000_162)
  public static let bodyTooLong = Self(rawValue: 4_000_163)
  public static let invalidLocale = Self(rawValue: 4_000_164)
  public static let altTextTooLong = Self(rawValue: 4_000_175)
  public static let maximumNumberOfImagesReached = Self(rawValue: 4_030_014)
  public static let maximumNumberOfMessagesReached = Self(rawValue: 4_030_016)
  public static let messageNotApproved = Self(rawValue: 4_030_017)
  public static let imageNotApproved = Self(rawValue: 4_030_018)
  public static let imageInUse = Self(rawValue: 4_030_019)
  public static let imageNotFound = Self(rawValue: 4_040_014)
  public static let messageNotFound = Self(rawValue: 4_040_015)
  public static let imageAlreadyExists = Self(rawValue: 4_090_000)
  public static let messageAlreadyExists = Self(rawValue: 4_090_001)
  public static let subscriptionExtensionIneligible = Self(rawValue: 4_030_004)
  public static let subscriptionMaxExtension = Self(rawValue: 4_030_005)
  public static let familySharedSubscriptionExtensionIneligible = Self(rawValue: 4_030_007)
  public static let accountNotFound = Self(rawValue: 4_040_001)
  public static let accountNotFoundRetryable = Self(rawValue: 4_040_002)
  public static let appNotFound = Self(rawValue: 4_040_003)
  public static let appNotFoundRetryable = Self(rawValue: 4_040_004)
  public static let originalTransactionIdNotFound = Self(rawValue: 4_040_005)
  public static let originalTransactionIdNotFoundRetryable = Self(rawValue: 4_040_006)
  public static let serverNotificationURLNotFound = Self(rawValue: 4_040_007)
  public static let testNotificationNotFound = Self(rawValue: 4_040_008)
  public static let statusRequestNotFound = Self(rawValue: 4_040_009)
  public static let transactionIdNotFound = Self(rawValue: 4_040_010)
  public static let appTransactionDoesNotExist = Self(rawValue: 4_040_019)
  // The group and seat errors (API 1.22/1.23): Apple's readable pages name them but give no
  // numeric codes; these are provisional (the simulator answers with them, the client maps
  // them by name as ``SeatError``), chosen clear of every range Apple documents. An unknown
  // code from Apple keeps its raw value and is treated as a permanent refusal.
  public static let bundleTransactionIdNotSupported = Self(rawValue: 4_000_950)
  public static let transactionNotDevManagedGroup = Self(rawValue: 4_000_951)
  public static let invalidGroupId = Self(rawValue: 4_000_952)
  public static let invalidLimit = Self(rawValue: 4_000_953)
  public static let invalidAssignedTransactionNotSupported = Self(rawValue: 4_000_954)
  public static let noAvailableSeats = Self(rawValue: 4_030_950)
  public static let subscriptionNotActive = Self(rawValue: 4_030_951)
  public static let seatClaimIdNotFound = Self(rawValue: 4_040_950)
  public static let appTransactionIdNotFound = Self(rawValue: 4_040_951)
  public static let groupNotFound = Self(rawValue: 4_040_952)
  public static let rateLimitExceeded = Self(rawValue: 4_290_000)
  public static let generalInternal = Self(rawValue: 5_000_000)
  public static let generalInternalRetryable = Self(rawValue: 5_000_001)

  public static let knownValues: [Self] = [
    .generalBadRequest, .invalidAppIdentifier, .invalidRequestRevision, .invalidTransactionId,
    .invalidOriginalTransactionId, .invalidExtendByDays, .invalidExtendReasonCode,
    .invalidRequestIdentifier, .startDateTooFarInPast, .startDateAfterEndDate,
    .invalidPaginationToken, .invalidStartDate, .invalidEndDate, .paginationTokenExpired,
    .invalidNotificationType, .multipleFiltersSupplied, .invalidTestNotificationToken, .invalidSort,
    .invalidProductType, .invalidProductId, .invalidSubscriptionGroupIdentifier,
    .invalidExcludeRevoked, .invalidInAppOwnershipType, .invalidEmptyStorefrontCountryCodeList,
    .invalidStorefrontCountryCode, .invalidRevoked, .invalidStatus,
    .invalidAccountTenure, .invalidAppAccountToken, .invalidConsumptionStatus,
    .invalidCustomerConsented, .invalidDeliveryStatus, .invalidLifetimeDollarsPurchased,
    .invalidLifetimeDollarsRefunded, .invalidPlatform, .invalidPlayTime,
    .invalidSampleContentProvided, .invalidUserStatus, .invalidImage, .headerTooLong,
    .bodyTooLong, .invalidLocale, .altTextTooLong, .maximumNumberOfImagesReached,
    .maximumNumberOfMessagesReached, .messageNotApproved, .imageNotApproved, .imageInUse,
    .imageNotFound, .messageNotFound, .imageAlreadyExists, .messageAlreadyExists,
    .invalidRefundPreference, .invalidTransactionTypeNotSupported, .appTransactionIdNotSupported,
    .invalidAppAccountTokenUUID, .familyTransactionNotSupported,
    .transactionIdIsNotOriginalTransactionId, .consumptionPercentageAutoRenewable,
    .subscriptionExtensionIneligible,
    .subscriptionMaxExtension, .familySharedSubscriptionExtensionIneligible, .accountNotFound,
    .accountNotFoundRetryable, .appNotFound, .appNotFoundRetryable, .originalTransactionIdNotFound,
    .originalTransactionIdNotFoundRetryable, .serverNotificationURLNotFound,
    .testNotificationNotFound, .statusRequestNotFound, .transactionIdNotFound,
    .appTransactionDoesNotExist, .rateLimitExceeded, .generalInternal, .generalInternalRetryable,
    .bundleTransactionIdNotSupported, .transactionNotDevManagedGroup, .invalidGroupId,
    .invalidLimit, .invalidAssignedTransactionNotSupported, .noAvailableSeats,
    .subscriptionNotActive, .seatClaimIdNotFound, .appTransactionIdNotFound, .groupNotFound,
  ]

  /// Apple's name of a group or seat error (its documentation page), nil for other codes.
  public var seatErrorName: String? {
    switch self {
    case .noAvailableSeats: "NoAvailableSeatsError"
    case .seatClaimIdNotFound: "SeatClaimIdNotFoundError"
    case .appTransactionIdNotFound: "AppTransactionIdNotFoundError"
    case .transactionNotDevManagedGroup: "TransactionNotDevManagedGroupError"
    case .subscriptionNotActive: "SubscriptionNotActiveError"
    case .bundleTransactionIdNotSupported: "BundleTransactionIdNotSupportedError"
    case .invalidGroupId: "InvalidGroupIdError"
    case .groupNotFound: "GroupNotFoundError"
    case .invalidLimit: "InvalidLimitError"
    case .invalidAssignedTransactionNotSupported: "InvalidAssignedTransactionNotSupportedError"
    default: nil
    }
  }

  public var isRetryable: Bool {
    [
      .rateLimitExceeded, .generalInternal, .generalInternalRetryable, .accountNotFoundRetryable,
      .appNotFoundRetryable, .originalTransactionIdNotFoundRetryable,
    ].contains(self)
  }
}
