import AppStoreVerification
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StoreLedgerCore
import Synchronization

/// The App Store Server API client: typed calls against Apple's hosts or a simulator, a
/// bearer token minted from the `.p8` key and reused until close to its end, retries with
/// backoff for 429 (honouring `Retry-After`) and 5xx, and every signed string handed to the
/// verifier before anything of it is returned.
public final class AppStoreServerAPIClient: Sendable {
  public let configuration: AppStoreServerAPIConfiguration
  let verifier: SignedDataVerifier
  let http: HTTPClient
  let logger: Logger
  private let cachedToken = Mutex<(token: String, expiresAt: Date)?>(nil)

  public init(
    configuration: AppStoreServerAPIConfiguration, verifier: SignedDataVerifier,
    httpClient: HTTPClient = .shared, logger: Logger
  ) {
    self.configuration = configuration
    self.verifier = verifier
    self.http = httpClient
    self.logger = logger
  }

  // MARK: Calls

  /// Get Transaction History (v2), page by page from `revision` (nil: from the start).
  public func transactionHistory(
    _ anyTransactionId: String, request: TransactionHistoryRequest = .init(),
    revision: String? = nil
  ) -> Pages<TransactionHistoryPage> {
    Pages(
      fetch: { [self] revision in
        var query = request.queryItems
        if let revision { query.append(("revision", revision)) }
        let body: HistoryResponse = try await get(
          "/inApps/v2/history/\(try Self.pathComponent(anyTransactionId))", query: query)
        let page = await TransactionHistoryPage(
          transactions: try verified(body.signedTransactions ?? []), revision: body.revision,
          hasMore: body.hasMore ?? false, environment: body.environment)
        return (page, body.revision, page.hasMore)
      }, firstRevision: revision)
  }

  /// Get Transaction Info.
  public func transactionInfo(_ transactionId: String) async throws -> VerifiedTransaction {
    let body: TransactionInfoResponse = try await get(
      "/inApps/v1/transactions/\(try Self.pathComponent(transactionId))", query: [])
    guard let signed = body.signedTransactionInfo else {
      throw AppStoreAPIError(.invalidResponse, "no signedTransactionInfo")
    }
    return try await verified([signed])[0]
  }

  /// Get All Subscription Statuses, optionally only those in `statuses`.
  public func subscriptionStatuses(
    _ anyTransactionId: String, statuses: [SubscriptionStatus] = []
  ) async throws -> [SubscriptionStatusEntry] {
    let body: StatusResponse = try await get(
      "/inApps/v1/subscriptions/\(try Self.pathComponent(anyTransactionId))",
      query: statuses.map { ("status", String($0.rawValue)) })
    var entries: [SubscriptionStatusEntry] = []
    for group in body.data ?? [] {
      for item in group.lastTransactions ?? [] {
        await entries.append(try entry(item, group: group.subscriptionGroupIdentifier))
      }
    }
    return entries
  }

  /// Get Refund History (v2), page by page from `revision`.
  public func refundHistory(_ anyTransactionId: String, revision: String? = nil)
    -> Pages<TransactionHistoryPage>
  {
    Pages(
      fetch: { [self] revision in
        let body: RefundHistoryResponse = try await get(
          "/inApps/v2/refund/lookup/\(try Self.pathComponent(anyTransactionId))",
          query: revision.map { [("revision", $0)] } ?? [])
        let page = await TransactionHistoryPage(
          transactions: try verified(body.signedTransactions ?? []), revision: body.revision,
          hasMore: body.hasMore ?? false, environment: nil)
        return (page, body.revision, page.hasMore)
      }, firstRevision: revision)
  }

  /// Get Notification History, page by page; each notification verified with its nested data.
  public func notificationHistory(_ request: NotificationHistoryRequest)
    -> Pages<NotificationHistoryPage>
  {
    Pages(
      fetch: { [self] token in
        let body: NotificationHistoryResponse = try await send(
          "/inApps/v1/notifications/history", query: token.map { [("paginationToken", $0)] } ?? [],
          method: .POST, body: try JSONEncoder().encode(request))
        var items: [NotificationHistoryPage.Item] = []
        for item in body.notificationHistory ?? [] { items.append(try await historyItem(item)) }
        let hasMore = body.hasMore ?? false
        return (
          NotificationHistoryPage(items: items, hasMore: hasMore), body.paginationToken, hasMore
        )
      }, firstRevision: nil)
  }

  /// Request a Test Notification; its token.
  public func requestTestNotification() async throws -> String {
    let body: SendTestNotificationResponse = try await send(
      "/inApps/v1/notifications/test", query: [], method: .POST, body: nil)
    guard let token = body.testNotificationToken else {
      throw AppStoreAPIError(.invalidResponse, "no testNotificationToken")
    }
    return token
  }

  /// Get Test Notification Status: the `TEST` notification, verified, and its attempts.
  public func testNotificationStatus(_ token: String) async throws -> NotificationHistoryPage.Item {
    guard token.utf8.allSatisfy({ $0 > 32 && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") })
    else {
      throw AppStoreAPIError(.apiError, apiErrorCode: .invalidTestNotificationToken, "bad token")
    }
    let body: CheckTestNotificationResponse = try await get(
      "/inApps/v1/notifications/test/\(token)", query: [])
    var item = NotificationHistoryResponseItem()
    item.signedPayload = body.signedPayload
    item.sendAttempts = body.sendAttempts
    return try await historyItem(item)
  }

  /// Extend a Subscription Renewal Date.
  public func extendRenewalDate(
    _ originalTransactionId: String, _ request: ExtendRenewalDateRequest
  )
    async throws -> ExtendRenewalDateResponse
  {
    try await send(
      "/inApps/v1/subscriptions/extend/\(try Self.pathComponent(originalTransactionId))", query: [],
      method: .PUT, body: try JSONEncoder().encode(request))
  }

  // MARK: Verification

  private func historyItem(_ item: NotificationHistoryResponseItem) async throws
    -> NotificationHistoryPage.Item
  {
    guard let signed = item.signedPayload else {
      throw AppStoreAPIError(.invalidResponse, "a history item lacks its signedPayload")
    }
    do {
      // A notification that names no app (a kind this release does not know) is verified by
      // its chain and signature, as the ledger stores it: never refused for being new.
      let unverified = try UnverifiedJWS<ResponseBodyV2DecodedPayload>(signed)
      let verified =
        unverified.claims.environment == nil || unverified.claims.bundleId == nil
        ? try await verifier.verifyUnroutable(unverified)
        : try await verifier.verifyNotification(unverified)
      return NotificationHistoryPage.Item(
        notification: verified, sendAttempts: item.sendAttempts ?? [])
    } catch {
      throw AppStoreAPIError(.unverifiedData, "a notification did not verify: \(error.code)")
    }
  }

  func verified(_ signed: [String]) async throws -> [VerifiedTransaction] {
    do {
      var verified: [VerifiedTransaction] = []
      for jws in signed { verified.append(try await verifier.verifyTransaction(jws)) }
      return verified
    } catch {
      throw AppStoreAPIError(.unverifiedData, "a signed transaction did not verify: \(error.code)")
    }
  }

  private func entry(_ item: LastTransactionsItem, group: String?) async throws
    -> SubscriptionStatusEntry
  {
    guard let transaction = item.signedTransactionInfo, let renewal = item.signedRenewalInfo else {
      throw AppStoreAPIError(.invalidResponse, "a status item lacks its signed data")
    }
    do {
      return SubscriptionStatusEntry(
        subscriptionGroupIdentifier: group, originalTransactionId: item.originalTransactionId,
        status: item.status, transaction: try await verifier.verifyTransaction(transaction),
        renewalInfo: try await verifier.verifyRenewalInfo(renewal))
    } catch {
      throw AppStoreAPIError(.unverifiedData, "signed status data did not verify: \(error.code)")
    }
  }

  // MARK: HTTP

  func get<Body: Decodable>(_ path: String, query: [(name: String, value: String)])
    async throws -> Body
  {
    try await send(path, query: query, method: .GET, body: nil)
  }

  /// `path` with retries as configured; `maximumAttempts` 1 for callers that retry on their
  /// own schedule (the error then carries Apple's `Retry-After`).
  func send<Body: Decodable>(
    _ path: String, query: [(name: String, value: String)], method: HTTPMethod, body: Data?,
    maximumAttempts: Int? = nil
  ) async throws -> Body {
    let url = configuration.baseURL + path + Self.queryString(query)
    let allowed = maximumAttempts ?? configuration.maximumAttempts
    var attempt = 1
    while true {
      do {
        return try await send(url, method: method, body: body)
      } catch let error as RetryableFailure {
        // Backoff doubles with each attempt; a Retry-After is waited for as Apple gives it.
        let wait = error.doubles ? error.wait * (1 << (attempt - 1)) : error.wait
        guard attempt < allowed, wait <= configuration.maximumWait else {
          throw error.doubles ? error.error : error.error.retrying(after: wait)
        }
        logger.debug(
          "App Store Server API call retried",
          metadata: ["code": "\(error.error.code.rawValue)", "attempt": "\(attempt)"])
        try await Task.sleep(for: wait)
        attempt += 1
      }
    }
  }

  /// One attempt; a failure worth another attempt comes as ``RetryableFailure``.
  private func send<Body: Decodable>(_ url: String, method: HTTPMethod, body: Data?)
    async throws -> Body
  {
    var request = HTTPClientRequest(url: url)
    request.method = method
    if let body {
      request.headers.add(name: "Content-Type", value: "application/json")
      request.body = .bytes(ByteBuffer(bytes: body))
    }
    request.headers.add(name: "Authorization", value: "Bearer \(try token())")
    request.headers.add(name: "Accept", value: "application/json")
    let response: HTTPClientResponse
    let bytes: ByteBuffer
    do {
      response = try await http.execute(request, timeout: Self.timeAmount(configuration.timeout))
      bytes = try await response.body.collect(upTo: 1 << 20)
    } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
      throw RetryableFailure(AppStoreAPIError(.timeout, "no answer in time"), backoff: self)
    } catch {
      throw RetryableFailure(AppStoreAPIError(.transport, "the request failed"), backoff: self)
    }
    let status = Int(response.status.code)
    if (200..<300).contains(status) {
      if let empty = NoContent() as? Body { return empty }
      guard let body = try? JSONDecoder().decode(Body.self, from: Data(bytes.readableBytesView))
      else {
        throw AppStoreAPIError(
          .invalidResponse, httpStatus: status, "the body is not the documented JSON")
      }
      return body
    }
    throw failure(
      status: status, body: bytes, retryAfter: response.headers.first(name: "Retry-After"))
  }

  private func failure(status: Int, body: ByteBuffer, retryAfter: String?) -> any Error {
    if status == 401 {
      return AppStoreAPIError(.unauthorized, httpStatus: 401, "the bearer token was refused")
    }
    let apple = try? JSONDecoder().decode(APIErrorResponse.self, from: Data(body.readableBytesView))
    let code = apple?.errorCode
    if status == 429 {
      let error = AppStoreAPIError(
        .rateLimited, httpStatus: 429, apiErrorCode: code, "rate limit exceeded")
      return RetryableFailure(
        error, wait: Self.wait(untilRetryAfter: retryAfter) ?? configuration.initialBackoff)
    }
    let error = AppStoreAPIError(
      .apiError, httpStatus: status, apiErrorCode: code, "Apple refused the request")
    return error.isRetryable ? RetryableFailure(error, backoff: self) : error
  }

  /// The bearer token, minted again when less than a minute of it is left.
  private func token() throws -> String {
    let now = configuration.now()
    if let cached = cachedToken.withLock({ $0 }), cached.expiresAt.timeIntervalSince(now) > 60 {
      return cached.token
    }
    let token = try configuration.key.token(now: now, lifetime: configuration.tokenLifetime)
    let lifetime = Double(min(configuration.tokenLifetime, APIToken.maximumLifetime))
    cachedToken.withLock { $0 = (token, now.addingTimeInterval(lifetime)) }
    return token
  }
}
