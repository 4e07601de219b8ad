import Foundation
import Hummingbird
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres

/// The change feed for pull consumers (`GET /v1/changes`, a long poll with `wait=`), and
/// the webhook delivery log and resend for operators.
struct ChangesController: Sendable {
  let feed: ChangeFeedReader
  let deliveries: ChangeDeliveryLog

  struct Page: Encodable {
    let changes: [ChangeRecord]
    /// The position to ask `after=` next.
    let next: Int64
  }

  struct Deliveries: Encodable {
    let endpoints: [ChangeDeliveryCounts]
    let deliveries: [ChangeDelivery]
    /// How many deliveries the list holds (all pages), and the cursor of the next page.
    let total: Int
    let nextCursor: String?

    // `nextCursor` is null on the last page, never left out.
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(endpoints, forKey: .endpoints)
      try container.encode(deliveries, forKey: .deliveries)
      try container.encode(total, forKey: .total)
      try container.encode(nextCursor, forKey: .nextCursor)
    }

    enum CodingKeys: String, CodingKey {
      case endpoints, deliveries, total, nextCursor
    }
  }

  struct Resend: Decodable {
    let endpoint: String
    let position: Int64?
    /// RFC 3339, as the document says (read in full).
    let since: String?
  }

  struct Resent: Encodable {
    let queued: Int
  }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.get("/v1/changes") { request, _ in
      let query = request.uri.queryParameters
      let after = try Self.integer(query.get("after"), name: "after", default: 0)
      let limit = try Self.integer(query.get("limit"), name: "limit", default: 100)
      let wait = try Self.integer(query.get("wait"), name: "wait", default: 0)
      guard (0...60).contains(wait) else {
        throw APIError(.badRequest, "invalid_request", "wait is 0 to 60 seconds")
      }
      let changes = try await feed.changes(
        after: after, limit: Int(limit), account: query.get("appAccountToken"),
        waitingUpTo: .seconds(wait), consistency: try AccountController.consistency(request))
      return try JSONBody.response(Page(changes: changes, next: changes.last?.position ?? after))
    }
    group.get("/v1/changes/deliveries") { request, _ in
      let query = request.uri.queryParameters
      let limit = try Self.integer(query.get("limit"), name: "limit", default: 100)
      let filter = ChangeDeliveryFilter(
        endpoint: query.get("endpoint"), state: try DeliveryState.named(query.get("state")),
        failing: query.get("failing") == "true")
      let page = try await deliveries.changeDeliveriesPage(
        filter, limit: Int(limit), cursor: query.get("cursor"))
      return try JSONBody.response(
        Deliveries(
          endpoints: try await deliveries.changeDeliveryCounts(), deliveries: page.rows,
          total: page.total, nextCursor: page.nextCursor))
    }
    group.post("/v1/changes/resend") { request, _ in
      let decoder = JSONDecoder()
      var request = request
      let buffer = try await request.collectBody(upTo: 4096)
      guard let resend = try? decoder.decode(Resend.self, from: Data(buffer.readableBytesView))
      else {
        throw APIError.invalidBody("the body is not {\"endpoint\", \"position\" or \"since\"}")
      }
      let queued: Int
      switch (resend.position, resend.since) {
      case (let position?, nil):
        queued = try await deliveries.resendChanges(
          to: resend.endpoint, from: position)
      case (nil, let text?):
        guard let since = InstantText.dateTime(text)?.date else {
          throw APIError.invalidBody(InstantText.problem("`since`", text))
        }
        queued = try await deliveries.resendChanges(
          to: resend.endpoint, since: since)
      default:
        throw APIError(.badRequest, "invalid_request", "give either position or since")
      }
      return try JSONBody.response(Resent(queued: queued))
    }
  }

  static func integer(_ text: String?, name: String, default value: Int64) throws -> Int64 {
    guard let text else { return value }
    guard let number = Int64(text), number >= 0 else {
      throw APIError(.badRequest, "invalid_request", "\(name) must be a whole number, 0 or more")
    }
    return number
  }
}
