import AppStoreServerAPI
import StoreLedgerCore

/// Apple's failures as ledger errors: what any call to the App Store Server API answers.
extension LedgerError {
  /// `error` of an App Store Server API call as a ledger error: Apple's refusals with their
  /// code and what to do, failures to reach Apple as `apple_unavailable`.
  static func apple(_ error: any Error, doing what: String) -> LedgerError {
    guard let error = error as? AppStoreAPIError else {
      return Self(.appleUnavailable, "\(what) failed; try again")
    }
    let code = error.apiErrorCode.map { Int64($0.rawValue) }
    if error.isRetryable || error.code == .transport || error.code == .timeout {
      return Self(
        .appleUnavailable, "Apple did not answer \(what) in time; try again",
        appleErrorCode: code)
    }
    if error.code == .unauthorized {
      return Self(
        .appleRefused, "Apple refused the API key (check --key-id, --issuer-id, --p8)")
    }
    return Self(
      .appleRefused, "\(what): " + refusal(error.apiErrorCode), appleErrorCode: code)
  }

  private static func refusal(_ code: APIErrorCode?) -> String {
    switch code {
    case .familyTransactionNotSupported?:
      "Apple does not take this for a family member's (FAMILY_SHARED) purchase"
    case .transactionIdIsNotOriginalTransactionId?:
      "Apple needs the purchase's originalTransactionId, not a later transaction's id"
    case .invalidAppAccountTokenUUID?: "Apple says the token is not a UUID"
    case .invalidTransactionId?, .invalidOriginalTransactionId?:
      "Apple says the transaction id is not valid"
    case .transactionIdNotFound?, .originalTransactionIdNotFound?:
      "Apple knows no such transaction (check the environment)"
    case .appTransactionIdNotSupported?: "this call does not take an appTransactionId"
    case .serverNotificationURLNotFound?:
      "Apple has no notification URL for this environment: set the App Store Server "
        + "Notifications URL (V2) in App Store Connect"
    case .noAvailableSeats?:
      "every seat is claimed (NoAvailableSeatsError): release a claim first (after a renewal with "
        + "fewer seats, release until the claims fit)"
    case .seatClaimIdNotFound?:
      "Apple knows no such seat claim for this subscription (SeatClaimIdNotFoundError)"
    case .appTransactionIdNotFound?:
      "Apple knows no such appTransactionId in this environment (AppTransactionIdNotFoundError)"
    case .transactionNotDevManagedGroup?:
      "the subscription is not a group with developer-hosted invitations "
        + "(TransactionNotDevManagedGroupError)"
    case .subscriptionNotActive?: "the subscription is not active (SubscriptionNotActiveError)"
    case .bundleTransactionIdNotSupported?:
      "a bundle's transaction id is not accepted (BundleTransactionIdNotSupportedError)"
    case .groupNotFound?: "Apple knows no such group (GroupNotFoundError); fetch a current one"
    case .invalidGroupId?: "the group id is malformed (InvalidGroupIdError)"
    case let code?: "Apple refused the request (errorCode \(code.rawValue))"
    case nil: "Apple refused the request"
    }
  }
}
