import AppStoreVerification
import Foundation
import NIOHTTP1
import StoreLedgerCore

/// The calls that act on Apple's side: answers to refund requests, tokens attached to
/// purchases, order lookups, app transactions.
extension AppStoreServerAPIClient {
  /// Send Consumption Information (v2); Apple answers 202. The body is checked against
  /// Apple's rules first (`productType` of the purchase), so a body Apple would refuse is
  /// never sent. `retrying: false` makes one attempt, for callers that keep their own
  /// schedule (a 429's `Retry-After` is then in the error).
  public func sendConsumptionInformation(
    _ transactionId: String, _ information: ConsumptionInformation, productType: ProductType?,
    retrying: Bool = true
  ) async throws {
    if let violation = information.violation(for: productType) {
      throw AppStoreAPIError(
        .apiError, apiErrorCode: violation.apiErrorCode,
        "the answer breaks Apple's rules: \(violation.rawValue)")
    }
    let _: NoContent = try await send(
      "/inApps/v2/transactions/consumption/\(try Self.pathComponent(transactionId))", query: [],
      method: .PUT, body: try JSONEncoder().encode(information),
      maximumAttempts: retrying ? nil : 1)
  }

  /// Set App Account Token: later transactions of the purchase carry `appAccountToken`.
  public func setAppAccountToken(_ appAccountToken: String, originalTransactionId: String)
    async throws
  {
    guard let token = AppAccountToken.canonical(appAccountToken) else {
      throw AppStoreAPIError(
        .apiError, apiErrorCode: .invalidAppAccountTokenUUID, "the token is not a UUID")
    }
    let _: NoContent = try await send(
      "/inApps/v1/transactions/\(try Self.pathComponent(originalTransactionId))/appAccountToken",
      query: [], method: .PUT, body: try JSONEncoder().encode(["appAccountToken": token]))
  }

  /// Finish Transaction (API 1.20): tells Apple the content of `transactionId` was delivered,
  /// as the app's `finish()` does.
  public func finishTransaction(_ transactionId: String) async throws {
    let _: NoContent = try await send(
      "/inApps/v1/transactions/\(try Self.pathComponent(transactionId))/finish", query: [],
      method: .POST, body: nil)
  }

  /// Look Up Order ID (Production only): the order's transactions, each verified; empty for
  /// an order Apple does not know (`status` 1).
  public func lookUpOrder(_ orderId: String) async throws -> (
    status: OrderLookupStatus?, transactions: [VerifiedTransaction]
  ) {
    guard !orderId.isEmpty, orderId.utf8.count <= 64,
      orderId.unicodeScalars.allSatisfy({ $0.isASCII && CharacterSet.alphanumerics.contains($0) })
    else {
      throw AppStoreAPIError(.apiError, apiErrorCode: .generalBadRequest, "invalid order id")
    }
    let body: OrderLookupResponse = try await get("/inApps/v1/lookup/\(orderId)", query: [])
    return await (body.status, try verified(body.signedTransactions ?? []))
  }

  /// Extend Subscription Renewal Dates for All Active Subscribers; Apple works through them
  /// later (RENEWAL_EXTENDED each, RENEWAL_EXTENSION at the end). Its request identifier.
  public func massExtendRenewalDate(_ request: MassExtendRenewalDateRequest) async throws
    -> String
  {
    do {
      _ = try request.validated()
    } catch {
      throw AppStoreAPIError(.apiError, apiErrorCode: error.code, error.message)
    }
    let body: MassExtendRenewalDateResponse = try await send(
      "/inApps/v1/subscriptions/extend/mass", query: [], method: .POST,
      body: try JSONEncoder().encode(request))
    return body.requestIdentifier ?? request.requestIdentifier ?? ""
  }

  /// Get Status of Subscription Renewal Date Extensions.
  public func massExtensionStatus(productId: String, requestIdentifier: String) async throws
    -> MassExtendRenewalDateStatusResponse
  {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    guard !productId.isEmpty, !requestIdentifier.isEmpty,
      let product = productId.addingPercentEncoding(withAllowedCharacters: allowed),
      let request = requestIdentifier.addingPercentEncoding(withAllowedCharacters: allowed)
    else {
      throw AppStoreAPIError(
        .apiError, apiErrorCode: .invalidRequestIdentifier, "a product id and a request id")
    }
    return try await get("/inApps/v1/subscriptions/extend/mass/\(product)/\(request)", query: [])
  }

  /// Get App Transaction Info, verified.
  public func appTransactionInfo(_ anyTransactionId: String) async throws -> VerifiedAppTransaction
  {
    let body: AppTransactionInfoResponse = try await get(
      "/inApps/v1/transactions/appTransactions/\(try Self.pathComponent(anyTransactionId))",
      query: [])
    guard let signed = body.signedAppTransactionInfo else {
      throw AppStoreAPIError(.invalidResponse, "no signedAppTransactionInfo")
    }
    do {
      return try await verifier.verifyAppTransaction(signed)
    } catch {
      throw AppStoreAPIError(.unverifiedData, "the app transaction did not verify: \(error.code)")
    }
  }
}

extension ConsumptionInformation.Violation {
  /// Apple's error code for the violation, where the reference records it.
  public var apiErrorCode: APIErrorCode? {
    switch self {
    case .consumptionPercentageAutoRenewableSubscription: .consumptionPercentageAutoRenewable
    case .invalidRefundPreference: .invalidRefundPreference
    case .invalidCustomerConsented: .invalidCustomerConsented
    case .invalidDeliveryStatus: .invalidDeliveryStatus
    default: .generalBadRequest
    }
  }
}
