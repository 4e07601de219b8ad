import AppStoreServerAPI
import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger

/// The seats of developer-hosted group subscriptions: `/v1/seats/{originalTransactionId}`
/// and its claims. Each write is safe to retry (a member's claim in force is returned, a
/// claim whose answer was lost is sent again with its request identifier, a released claim
/// stays released); an `Idempotency-Key` on a claim names it.
struct SeatsController: Sendable {
  let seats: SeatLedger

  struct ClaimBody: Decodable {
    let appAccountToken: String
    let appTransactionId: String?
  }

  struct AssociateBody: Decodable {
    let appTransactionId: String
  }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.get("/v1/seats/{originalTransactionId}") { request, context in
      let time = try AccountController.time(request)
      return try JSONBody.response(try await seats.show(try Self.chain(context), at: time))
    }
    group.post("/v1/seats/{originalTransactionId}/claims") { request, context in
      let body = try await JSONBody.decode(
        ClaimBody.self, from: request, limit: 4096,
        what: #"a seat claim ({"appAccountToken": …, "appTransactionId": …})"#)
      let key = request.headers[IngestController.idempotencyKey]
      let claimed = try await seats.claim(
        try Self.chain(context), for: body.appAccountToken,
        appTransactionId: body.appTransactionId, requestIdentifier: key)
      return try JSONBody.response(claimed, status: claimed.wasDuplicate ? .ok : .created)
    }
    group.delete("/v1/seats/{originalTransactionId}/claims/{seatClaimId}") { _, context in
      try JSONBody.response(
        try await seats.release(
          try Self.chain(context), seatClaimId: try context.parameters.require("seatClaimId")))
    }
    group.post("/v1/seats/{originalTransactionId}/claims/{seatClaimId}/associate") {
      request, context in
      let body = try await JSONBody.decode(
        AssociateBody.self, from: request, limit: 4096,
        what: #"an association ({"appTransactionId": …})"#)
      return try JSONBody.response(
        try await seats.associate(
          try Self.chain(context), seatClaimId: try context.parameters.require("seatClaimId"),
          appTransactionId: body.appTransactionId))
    }
    group.post("/v1/seats/{originalTransactionId}/reconcile") { _, context in
      try JSONBody.response(try await seats.reconcile(try Self.chain(context)))
    }
  }

  private static func chain(_ context: LedgerRequestContext) throws -> String {
    try context.parameters.require("originalTransactionId")
  }
}
