import AppStoreServerAPI
import Foundation
import Hummingbird
import StoreLedger

/// Tools for customer support that ask Apple: Look Up Order ID.
struct SupportController: Sendable {
  let ledger: Ledger
  let apple: AppStoreServerAPIClient?

  func register(on group: RouterGroup<BasicRequestContext>) {
    group.get("/v1/orders/{orderId}") { _, context in
      guard let apple else {
        throw APIError(
          .notImplemented, "not_configured",
          "order lookup needs App Store Server API credentials (serve --key-id, --issuer-id, --p8)")
      }
      let orderId = try context.parameters.require("orderId")
      return try JSONBody.response(try await ledger.lookUpOrder(orderId, apple: apple))
    }
  }
}
