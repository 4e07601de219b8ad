import AppStoreServerAPI
import StoreLedgerCore

/// The Server API's answers, computed from the store (no HTTP here).
extension SimulatedAppStore {
  static let pageSize = 20

  /// Get Transaction History (v2).
  public func history(
    of anyTransactionId: String, request: TransactionHistoryRequest, revision token: String?,
    version: HistoryVersion = .v2
  ) throws(APIErrorResponse.Failure) -> HistoryResponse {
    let customer = try customerOrFail(anyTransactionId)
    let revision = try token.map { token throws(APIErrorResponse.Failure) in
      try Revision(token: token)
    }
    if let revision, revision.direction != request.sort {
      throw .init(.invalidRequestRevision, "the revision belongs to the other sort order")
    }
    var matching = history(of: customer).filter {
      request.admits($0.payload) && version.lists($0.payload)
    }
    if request.sort == .descending { matching.reverse() }
    let remaining = matching.filter { entry in
      guard let revision else { return true }
      return request.sort == .ascending
        ? entry.modified > revision.position : entry.modified < revision.position
    }
    let page = remaining.prefix(Self.pageSize)
    var response = envelope(HistoryResponse())
    response.signedTransactions = page.map { signed($0.payload) }
    response.hasMore = remaining.count > page.count
    let position =
      page.last?.modified ?? revision?.position ?? (request.sort == .ascending ? 0 : .max)
    response.revision = Revision(direction: request.sort, position: position).token
    return response
  }

  /// Get Transaction Info.
  public func transactionInfo(_ transactionId: String) throws(APIErrorResponse.Failure)
    -> TransactionInfoResponse
  {
    try Self.checkIdentifier(transactionId)
    guard let payload = transaction(transactionId) else {
      if customer(of: transactionId) != nil {
        throw .init(.appTransactionIdNotSupported, "this endpoint takes no appTransactionId")
      }
      throw .init(.transactionIdNotFound, "transaction id not found")
    }
    var response = TransactionInfoResponse()
    response.signedTransactionInfo = signed(payload)
    return response
  }

  /// Get All Subscription Statuses, optionally only those with one of `statuses`.
  public func statuses(of anyTransactionId: String, filter statuses: [SubscriptionStatus])
    throws(APIErrorResponse.Failure) -> StatusResponse
  {
    let customer = try customerOrFail(anyTransactionId)
    let transactions = history(of: customer).map(\.payload)
    var groups: [String: [LastTransactionsItem]] = [:]
    for subscription in subscriptions(of: customer) {
      guard let latest = latestTransaction(of: subscription, among: transactions) else { continue }
      let status = subscription.status ?? derivedStatus(of: latest)
      if !statuses.isEmpty, !statuses.contains(status) { continue }
      var item = LastTransactionsItem()
      item.originalTransactionId = subscription.originalTransactionId
      item.status = status
      item.signedTransactionInfo = signed(latest)
      item.signedRenewalInfo = signed(subscription.renewalInfo)
      groups[latest.subscriptionGroupIdentifier ?? "", default: []].append(item)
    }
    var response = envelope(StatusResponse())
    response.data = groups.keys.sorted().map { group in
      var item = SubscriptionGroupIdentifierItem()
      item.subscriptionGroupIdentifier = group
      item.lastTransactions = groups[group]
      return item
    }
    return response
  }

  /// Get Refund History (v2): refunded transactions, oldest refund first.
  public func refunds(of anyTransactionId: String, revision token: String?)
    throws(APIErrorResponse.Failure) -> RefundHistoryResponse
  {
    let customer = try customerOrFail(anyTransactionId)
    let offset =
      try token.map { token throws(APIErrorResponse.Failure) in
        try Revision(token: token).position
      } ?? 0
    let refunded = history(of: customer).map(\.payload)
      .filter { $0.revocationDate != nil }
      .sorted {
        ($0.revocationDate!, $0.transactionId ?? "") < ($1.revocationDate!, $1.transactionId ?? "")
      }
    let start = Int(min(offset, Int64(refunded.count)))
    let page = refunded[start..<min(start + Self.pageSize, refunded.count)]
    var response = RefundHistoryResponse()
    response.signedTransactions = page.map(signed)
    let next = Int64(start + page.count)
    response.hasMore = next < Int64(refunded.count)
    response.revision = Revision(direction: .ascending, position: next).token
    return response
  }

  private func customerOrFail(_ anyTransactionId: String) throws(APIErrorResponse.Failure)
    -> String
  {
    try Self.checkIdentifier(anyTransactionId)
    guard let customer = customer(of: anyTransactionId) else {
      throw .init(.transactionIdNotFound, "transaction id not found")
    }
    return customer
  }

  /// Apple's transaction ids are decimal numbers.
  static func checkIdentifier(_ id: String) throws(APIErrorResponse.Failure) {
    guard !id.isEmpty, id.utf8.count <= 32, id.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
      throw .init(.invalidTransactionId, "invalid transaction id")
    }
  }

  /// `response` with the app's identity, as Apple stamps every envelope.
  private func envelope<Response: AppEnvelope>(_ response: Response) -> Response {
    var response = response
    response.bundleId = app.bundleId
    response.appAppleId = app.appAppleId
    response.environment = app.environment
    return response
  }

  /// The subscription's newest period: the latest purchase that was not upgraded away.
  private func latestTransaction(
    of subscription: SimulatedSubscription, among transactions: [JWSTransactionDecodedPayload]
  ) -> JWSTransactionDecodedPayload? {
    transactions.filter { $0.originalTransactionId == subscription.originalTransactionId }
      .max {
        ($0.isUpgraded ?? false ? 0 : 1, $0.purchaseDate ?? .init(milliseconds: 0))
          < ($1.isUpgraded ?? false ? 0 : 1, $1.purchaseDate ?? .init(milliseconds: 0))
      }
  }

  func derivedStatus(of latest: JWSTransactionDecodedPayload) -> SubscriptionStatus {
    if latest.revocationDate != nil { return .revoked }
    guard let expires = latest.expiresDate else { return .active }
    return expires > now ? .active : .expired
  }
}

/// A response that names the app it is about.
protocol AppEnvelope {
  var bundleId: String? { get set }
  var appAppleId: Int64? { get set }
  var environment: AppStoreEnvironment? { get set }
}

extension HistoryResponse: AppEnvelope {}
extension StatusResponse: AppEnvelope {}
