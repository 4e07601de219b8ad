import AppStoreServerAPI
import Foundation
import HTTPTypes
import Hummingbird
import StoreLedgerCore
import Synchronization

/// The App Store Server API endpoints of the simulator, answering as Apple does: JSON bodies,
/// Apple's error bodies and codes, 401 with no body for a bad token, 429 with `Retry-After`
/// (UNIX milliseconds) past the rate limit.
struct ServerAPIController: Sendable {
  let store: SimulatedAppStore
  let tokens: APITokenValidator
  let limiter: RateLimiter?
  /// Internal errors still to answer.
  let internalErrors: Countdown
  let hasNotificationURL: Bool

  func register(on router: Router<BasicRequestContext>) {
    registerSeats(on: router)
    registerRetention(on: router)
    for (path, version) in [
      ("/inApps/v2/history/:id", HistoryVersion.v2), ("/inApps/v1/history/:id", .v1),
    ] {
      router.get(RouterPath(path)) { request, context in
        try await answer(request, endpoint: version == .v2 ? "history" : "historyV1") {
          let query = queryItems(request)
          let history = try TransactionHistoryRequest(
            queryItems: query.filter { $0.name != "revision" })
          return try store.history(
            of: try id(context), request: history,
            revision: query.last { $0.name == "revision" }?.value, version: version)
        }
      }
    }
    router.get("/inApps/v1/transactions/:id") { request, context in
      try await answer(request, endpoint: "transactionInfo") {
        try store.transactionInfo(try id(context))
      }
    }
    router.get("/inApps/v1/subscriptions/:id") { request, context in
      try await answer(request, endpoint: "statuses") {
        let statuses = try queryItems(request).filter { $0.name == "status" }.map {
          item in
          guard let value = Int32(item.value), (1...5).contains(value) else {
            throw APIErrorResponse.Failure(.invalidStatus, "status must be 1 to 5")
          }
          return SubscriptionStatus(rawValue: value)
        }
        return try store.statuses(of: try id(context), filter: statuses)
      }
    }
    router.post("/inApps/v1/notifications/history") { request, context in
      let bytes = try await request.body.collect(upTo: 1 << 16)
      return try await answer(request, endpoint: "notificationHistory") {
        let body = try decoded(bytes, as: NotificationHistoryRequest.self)
        return try store.notificationHistory(
          body, paginationToken: queryItems(request).last { $0.name == "paginationToken" }?.value)
      }
    }
    router.post("/inApps/v1/notifications/test") { request, _ in
      try await answer(request, endpoint: "testNotification") {
        guard hasNotificationURL else {
          throw APIErrorResponse.Failure(
            .serverNotificationURLNotFound, "no notification URL for this environment")
        }
        return store.requestTestNotification()
      }
    }
    router.get("/inApps/v1/notifications/test/:token") { request, context in
      try await answer(request, endpoint: "testNotificationStatus") {
        try store.testNotificationStatus(context.parameters.get("token") ?? "")
      }
    }
    router.put("/inApps/v1/subscriptions/extend/:id") { request, context in
      let bytes = try await request.body.collect(upTo: 1 << 16)
      return try await answer(request, endpoint: "extend") {
        let body = try decoded(bytes, as: ExtendRenewalDateRequest.self)
        return try store.extendRenewalDate(try id(context), body)
      }
    }
    router.put("/inApps/v2/transactions/consumption/:id") { request, context in
      let bytes = try await request.body.collect(upTo: 1 << 16)
      return try await answer(request, endpoint: "consumption", status: .accepted) {
        let body = try decoded(bytes, as: ConsumptionInformation.self)
        try store.receiveConsumption(try id(context), body)
        return NoContent()
      }
    }
    router.put("/inApps/v1/transactions/consumption/:id") { request, context in
      let bytes = try await request.body.collect(upTo: 1 << 16)
      return try await answer(request, endpoint: "consumptionV1", status: .accepted) {
        let body = try decoded(bytes, as: ConsumptionRequestV1.self)
        try store.receiveConsumptionV1(try id(context), body)
        return NoContent()
      }
    }
    router.get("/inApps/v1/transactions/appTransactions/:id") { request, context in
      try await answer(request, endpoint: "appTransactionInfo") {
        try store.appTransactionInfo(try id(context))
      }
    }
    router.post("/inApps/v1/transactions/:id/finish") { request, context in
      try await answer(request, endpoint: "finishTransaction") {
        try store.finishTransaction(try id(context))
        return NoContent()
      }
    }
    router.put("/inApps/v1/transactions/:id/appAccountToken") { request, context in
      let bytes = try await request.body.collect(upTo: 1 << 16)
      return try await answer(request, endpoint: "setAppAccountToken") {
        let body = try? JSONDecoder().decode(
          [String: String].self, from: Data(bytes.readableBytesView))
        try store.setAppAccountToken(try id(context), body?["appAccountToken"])
        return NoContent()
      }
    }
    router.post("/inApps/v1/subscriptions/extend/mass") { request, _ in
      let bytes = try await request.body.collect(upTo: 1 << 16)
      return try await answer(request, endpoint: "massExtend") {
        let body = try decoded(bytes, as: MassExtendRenewalDateRequest.self)
        return try store.massExtendRenewalDate(body)
      }
    }
    router.get("/inApps/v1/subscriptions/extend/mass/:productId/:requestId") { request, context in
      try await answer(request, endpoint: "massExtendStatus") {
        try store.massExtensionStatus(
          productId: context.parameters.get("productId") ?? "",
          requestIdentifier: context.parameters.get("requestId") ?? "")
      }
    }
    router.get("/inApps/v1/lookup/:orderId") { request, context in
      // Apple serves Look Up Order ID in Production only: the Sandbox host has no such path.
      guard store.app.environment == .production else { return Response(status: .notFound) }
      return try await answer(request, endpoint: "orderLookup") {
        try store.lookUpOrder(context.parameters.get("orderId") ?? "")
      }
    }
    router.get("/inApps/v2/refund/lookup/:id") { request, context in
      try await answer(request, endpoint: "refunds") {
        try store.refunds(
          of: try id(context), revision: queryItems(request).last { $0.name == "revision" }?.value)
      }
    }
  }

  /// Checks the bearer token and the rate limit, then encodes `body`'s answer or Apple's
  /// error for it.
  func answer(
    _ request: Request, endpoint: String, status success: HTTPResponse.Status = .ok,
    _ body: () throws -> some Encodable
  ) async throws -> Response {
    guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
      (try? tokens.validate(bearer: String(header.dropFirst("Bearer ".count)))) != nil
    else { return Response(status: .unauthorized) }
    if let limiter, let retryAt = limiter.admit(endpoint) {
      var response = json(
        APIErrorResponse(.rateLimitExceeded, "Rate limit exceeded."), status: .tooManyRequests)
      let milliseconds = Int64((retryAt.timeIntervalSince1970 * 1000).rounded(.up))
      response.headers[.retryAfter] = String(milliseconds)
      return response
    }
    if internalErrors.take() {
      return json(
        APIErrorResponse(.generalInternalRetryable, "An unknown error occurred. Retry."),
        status: .internalServerError)
    }
    do {
      let value = try body()
      if value is NoContent { return Response(status: success) }
      return json(value, status: success)
    } catch let error as APIErrorResponse.Failure {
      return json(error.body, status: HTTPResponse.Status(code: error.httpStatus))
    }
  }

  /// Groups and seats (API 1.22/1.23) at ``AppStoreServerAPIClient/seatPathPrefix``.
  private func registerSeats(on router: Router<BasicRequestContext>) {
    let seats = "\(AppStoreServerAPIClient.seatPathPrefix)/transactions/:id/seats"
    router.post(RouterPath(seats)) { request, context in
      let bytes = try await request.body.collect(upTo: 1 << 16)
      let claimed = try await answer(request, endpoint: "claimSeat") {
        try store.claimSeat(
          try id(context),
          try? JSONDecoder().decode(ClaimSeatRequest.self, from: Data(bytes.readableBytesView)))
      }
      // The seat is taken; a lost answer reaches the client as a retryable failure.
      guard claimed.status == .ok, store.takeLostClaimAnswer() else { return claimed }
      return json(
        APIErrorResponse(.generalInternalRetryable, "An unknown error occurred. Retry."),
        status: .internalServerError)
    }
    router.get(RouterPath(seats)) { request, context in
      try await answer(request, endpoint: "seatInfo") { try store.seatInfo(try id(context)) }
    }
    router.delete(RouterPath(seats + "/:claim")) { request, context in
      try await answer(request, endpoint: "unclaimSeat") {
        try store.unclaimSeat(try id(context), context.parameters.get("claim") ?? "")
        return NoContent()
      }
    }
    router.post(RouterPath(seats + "/:claim/associate")) { request, context in
      let bytes = try await request.body.collect(upTo: 1 << 16)
      return try await answer(request, endpoint: "associateSeat") {
        let body = try? JSONDecoder().decode(
          AssociateSeatRequest.self, from: Data(bytes.readableBytesView))
        try store.associateSeat(
          try id(context), context.parameters.get("claim") ?? "", body?.appTransactionId)
        return NoContent()
      }
    }
    router.get(RouterPath("\(AppStoreServerAPIClient.seatPathPrefix)/currentGroups/:id")) {
      request, context in
      try await answer(request, endpoint: "customerGroups") {
        try store.customerGroups(try id(context))
      }
    }
    router.get(RouterPath("\(AppStoreServerAPIClient.seatPathPrefix)/group/:group")) {
      request, context in
      try await answer(request, endpoint: "groupMembers") {
        try store.groupMembers(
          context.parameters.get("group") ?? "",
          limit: request.uri.queryParameters.get("limit"),
          token: request.uri.queryParameters.get("paginationToken"))
      }
    }
  }

  /// A request body as Apple's model, or Apple's general bad-request error.
  func decoded<Body: Decodable>(_ bytes: ByteBuffer, as type: Body.Type)
    throws(APIErrorResponse.Failure) -> Body
  {
    guard let body = try? JSONDecoder().decode(type, from: Data(bytes.readableBytesView)) else {
      throw APIErrorResponse.Failure(.generalBadRequest, "the body is not a request")
    }
    return body
  }

  private func id(_ context: BasicRequestContext) throws(APIErrorResponse.Failure) -> String {
    guard let id = context.parameters.get("id") else {
      throw .init(.invalidTransactionId, "missing transaction id")
    }
    return id
  }

  private func queryItems(_ request: Request) -> [(name: String, value: String)] {
    request.uri.queryParameters.map { (String($0.key), String($0.value)) }
  }

  private func json(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
    // The API's response models encode plain values; encoding cannot fail.
    let data = try! JSONEncoder().encode(value)
    return Response(
      status: status, headers: [.contentType: "application/json"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }
}
