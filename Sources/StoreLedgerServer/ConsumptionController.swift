import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// Refund requests for operators: list them with their counts, show one with its events,
/// answer one now, and try a policy on past ones.
struct ConsumptionController: Sendable {
  let requests: ConsumptionRequests
  let consents: RefundConsents
  let worker: ConsumptionWorker?

  struct Listing: Encodable {
    let requests: [ConsumptionRequestReport]
    /// How many requests the list holds (all pages), and the cursor of the next page.
    let total: Int
    let nextCursor: String?
    let metrics: ConsumptionMetrics

    // `nextCursor` is null on the last page, never left out.
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(requests, forKey: .requests)
      try container.encode(total, forKey: .total)
      try container.encode(nextCursor, forKey: .nextCursor)
      try container.encode(metrics, forKey: .metrics)
    }

    enum CodingKeys: String, CodingKey {
      case requests, total, nextCursor, metrics
    }
  }

  /// A customer's refund consent: the answer in force now and every answer recorded.
  struct ConsentAnswer: Encodable {
    let appAccountToken: String
    let inForce: RefundConsent?
    let history: [RefundConsent]
  }

  struct DryRun: Encodable {
    let policy: ConsumptionPolicy
    let requests: [ConsumptionDryRunLine]
  }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.get("/v1/consumption-requests") { request, _ in
      let query = request.uri.queryParameters
      let states = try Self.states(query.get("state"))
      let limit = try Self.limit(query.get("limit"))
      let page = try await requests.page(states: states, limit: limit, cursor: query.get("cursor"))
      return try JSONBody.response(
        Listing(
          requests: page.rows, total: page.total, nextCursor: page.nextCursor,
          metrics: try await requests.metrics()))
    }
    group.get("/v1/consumption-requests/{id}") { _, context in
      try JSONBody.response(
        try await requests.request(try context.parameters.require("id")))
    }
    group.post("/v1/consumption-requests/{id}/answer") { request, context in
      let id = try context.parameters.require("id")
      let override = try await Self.override(request)
      return try JSONBody.response(try await configuredWorker().answer(id, override: override))
    }
    group.post("/v1/accounts/{token}/consent") { request, context in
      let token = try context.parameters.require("token")
      struct Body: Decodable {
        let consented: Bool
        let collectedAt: Int64?
        let method: String?
      }
      let body = try await JSONBody.decode(
        Body.self, from: request, limit: 4096,
        what: #"{"consented": true|false, "collectedAt": ms?, "method": "…"?}"#)
      // A time the document allows but that has not come yet: answered 422, like any request
      // whose parts fit the document but cannot be taken.
      if let collectedAt = body.collectedAt,
        collectedAt > Int64((Date().timeIntervalSince1970 + 300) * 1000)
      {
        throw APIError(
          .unprocessableContent, "invalid_time",
          "`collectedAt` is when the app collected the answer: not in the future")
      }
      let key = request.headers[HTTPField.Name("Idempotency-Key")!]
      let stored = try await consents.record(
        appAccountToken: token, consented: body.consented,
        collectedAt: body.collectedAt.map { Timestamp(milliseconds: $0).date } ?? Date(),
        method: body.method, idempotencyKey: key)
      return try JSONBody.response(
        try await Self.consent(of: token, consents), status: stored.wasDuplicate ? .ok : .created)
    }
    group.get("/v1/accounts/{token}/consent") { _, context in
      try JSONBody.response(
        try await Self.consent(
          of: try context.parameters.require("token"), consents))
    }
    group.post("/v1/consumption-requests/dry-run") { request, _ in
      let policy = try await Self.policy(request)
      let limit = try Self.limit(request.uri.queryParameters.get("limit"))
      return try JSONBody.response(
        DryRun(
          policy: policy,
          requests: try await requests.dryRun(
            policy: policy, limit: limit)))
    }
  }

  /// The customer's consent now: one read of its stream, the answer in force taken from it.
  static func consent(of token: String, _ consents: RefundConsents) async throws -> ConsentAnswer {
    let history = try await consents.history(for: token)
    return ConsentAnswer(
      appAccountToken: AppAccountToken.canonical(token) ?? token,
      inForce: RefundConsent.inForce(history, at: Timestamp(Date())), history: history)
  }

  private func configuredWorker() throws -> ConsumptionWorker {
    guard let worker else {
      throw APIError(
        .notImplemented, "not_configured",
        "answering needs App Store Server API credentials (serve --key-id, --issuer-id, --p8)")
    }
    return worker
  }

  /// `?state=` as a comma-separated list of states (`open` is pending and sending).
  static func states(_ text: String?) throws -> [ConsumptionRequest.Phase] {
    guard let text, !text.isEmpty else { return [] }
    var states: [ConsumptionRequest.Phase] = []
    for name in text.split(separator: ",") {
      if name == "open" {
        states += [.pending, .sending]
      } else if let state = ConsumptionRequest.Phase(rawValue: String(name)) {
        states.append(state)
      } else {
        throw APIError.invalidRequest(
          "`state` is one or more of open, "
            + ConsumptionRequest.Phase.allCases.map(\.rawValue).joined(separator: ", "))
      }
    }
    return states
  }

  static func limit(_ text: String?) throws -> Int {
    guard let text else { return 100 }
    guard let limit = Int(text), (1...1000).contains(limit) else {
      throw APIError.invalidRequest("`limit` is a number from 1 to 1000")
    }
    return limit
  }

  static func override(_ request: Request) async throws -> ConsumptionWorker.Override {
    var request = request
    let buffer = try await request.collectBody(upTo: 16 * 1024)
    guard buffer.readableBytes > 0 else { return .init() }
    guard
      let override = try? JSONDecoder().decode(
        ConsumptionWorker.Override.self, from: Data(buffer.readableBytesView))
    else {
      throw APIError.invalidBody(
        "the body is {\"refundPreference\", \"deliveryStatus\", \"consumptionPercentage\"} "
          + "(each optional) or empty")
    }
    return override
  }

  static func policy(_ request: Request) async throws -> ConsumptionPolicy {
    var request = request
    let buffer = try await request.collectBody(upTo: 64 * 1024)
    do {
      return try JSONDecoder().decode(ConsumptionPolicy.self, from: Data(buffer.readableBytesView))
    } catch let error as ConsumptionPolicy.ValidationError {
      throw APIError(.badRequest, error.code, error.description)
    } catch {
      throw APIError.invalidBody("the body is not a consumption policy (see the OpenAPI document)")
    }
  }
}
