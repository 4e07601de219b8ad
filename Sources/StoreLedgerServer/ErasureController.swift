import Foundation
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// Erasure over HTTP: erase an account (admin keys only, and only when the database lets the
/// server's role run the erasure), and list the erasures the log records.
struct ErasureController: Sendable {
  let erasure: AccountErasure

  struct Body: Decodable {
    let reason: String
    let requestedBy: String
    let later: LaterDataRule?
  }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.post("/v1/accounts/{token}/erasure") { request, context in
      let token = try context.parameters.require("token")
      let body = try await JSONBody.decode(
        Body.self, from: request, limit: 4096,
        what: #"{"reason": "…", "requestedBy": "…", "later": "quarantine"|"attach"?}"#)
      return try JSONBody.response(
        try await erasure.erase(
          [token], reason: body.reason, requestedBy: body.requestedBy,
          later: body.later ?? .quarantine))
    }
    group.get("/v1/erasures") { _, _ in
      struct Listing: Encodable { let erasures: [ErasureRecord] }
      return try JSONBody.response(
        Listing(erasures: try await erasure.erasures()))
    }
  }
}
