import AppStoreServerAPI
import Foundation
import Hummingbird
import Logging
import StoreLedger
import StoreLedgerCore

/// Tools for support and operations that ask Apple: order lookup, renewal-date extensions.
struct SupportController: Sendable {
  let actions: AppleActions
  /// Moves StoreKit 1 receipts onto the ledger; nil without Apple's API credentials.
  let receipts: ReceiptImport?
  let apple: AppStoreServerAPIClient?
  let logger: Logger

  struct ExtensionBody: Decodable {
    let originalTransactionId: String?
    let productId: String?
    let extendByDays: Int32
    let extendReasonCode: Int32
    let requestIdentifier: String?
    let storefrontCountryCodes: [String]?
  }

  struct ReceiptsBody: Decodable {
    let receipts: [ReceiptImport.Item]
  }

  struct OfferBody: Decodable {
    let productId: String
    /// `jws`: Apple's JWS form (StoreKit 2); the first form otherwise.
    let format: String?
    let transactionId: String?
  }

  struct EligibilityBody: Decodable {
    let productId: String
    let subscriptionGroupIdentifier: String?
    let transactionId: String?
  }

  func register(on group: RouterGroup<LedgerRequestContext>) {
    group.post("/v1/webhook-check") { request, _ in
      let apple = try configured()
      let seconds = Int(request.uri.queryParameters.get("timeout") ?? "30") ?? -1
      guard (1...120).contains(seconds) else {
        throw APIError.invalidRequest("`timeout` is a number of seconds from 1 to 120")
      }
      return try JSONBody.response(
        try await actions.checkWebhook(
          apple: apple, timeout: .seconds(seconds)))
    }
    group.post("/v1/receipts") { request, _ in
      guard let receipts else { throw Self.notConfigured }
      let body = try await JSONBody.decode(
        ReceiptsBody.self, from: request, limit: 4 << 20,
        what: #"{"receipts": [{"receipt": base64, "appAccountToken": …}]}"#)
      guard (1...100).contains(body.receipts.count) else {
        throw APIError.invalidRequest("send 1 to 100 receipts per request")
      }
      return try JSONBody.response(await receipts.run(body.receipts))
    }
    group.get("/v1/accounts/{token}/offers") { _, context in
      try JSONBody.response(
        try await actions.offerEligibility(
          for: try AccountController.token(context)))
    }
    group.post("/v1/accounts/{token}/offers/{offerId}/signature") { request, context in
      let key = try configured().configuration.key
      let token = try AccountController.token(context)
      let offer = try context.parameters.require("offerId")
      let body = try await JSONBody.decode(
        OfferBody.self, from: request, limit: 4096,
        what: #"{"productId": …, "format": "jws"?, "transactionId": …?}"#)
      if body.format == "jws" {
        return try JSONBody.response(
          try await actions.signPromotionalOfferJWS(
            for: token, productId: body.productId, offerIdentifier: offer,
            transactionId: body.transactionId, key: key), status: .created)
      }
      guard body.format == nil else {
        throw APIError.invalidRequest("`format` is \"jws\" or left out")
      }
      return try JSONBody.response(
        try await actions.signPromotionalOffer(
          for: token, productId: body.productId, offerIdentifier: offer, key: key),
        status: .created)
    }
    group.post("/v1/accounts/{token}/introductory-offer-eligibility") { request, context in
      let key = try configured().configuration.key
      let body = try await JSONBody.decode(
        EligibilityBody.self, from: request, limit: 4096,
        what: #"{"productId": …, "subscriptionGroupIdentifier": …?, "transactionId": …?}"#)
      return try JSONBody.response(
        try await actions.signIntroductoryOfferEligibility(
          for: try AccountController.token(context), productId: body.productId,
          subscriptionGroupIdentifier: body.subscriptionGroupIdentifier,
          transactionId: body.transactionId, key: key), status: .created)
    }
    group.post("/v1/transactions/{transactionId}/finish") { _, context in
      try await actions.finishTransaction(
        try context.parameters.require("transactionId"), apple: try configured())
      return try JSONBody.response(["finished": true])
    }
    group.post("/v1/extensions") { request, _ in
      let apple = try configured()
      let body = try await JSONBody.decode(
        ExtensionBody.self, from: request, limit: 16 * 1024,
        what:
          #"an extension ({"originalTransactionId" or "productId", "extendByDays", "extendReasonCode"})"#
      )
      guard (body.originalTransactionId == nil) != (body.productId == nil) else {
        throw APIError.invalidRequest("give originalTransactionId or productId, not both")
      }
      if let original = body.originalTransactionId {
        return try JSONBody.response(
          try await actions.extendRenewalDate(
            originalTransactionId: original, days: body.extendByDays,
            reason: body.extendReasonCode, requestIdentifier: body.requestIdentifier,
            apple: apple))
      }
      return try JSONBody.response(
        try await actions.extendAllSubscribers(
          productId: body.productId ?? "", days: body.extendByDays, reason: body.extendReasonCode,
          storefronts: body.storefrontCountryCodes, requestIdentifier: body.requestIdentifier,
          apple: apple), status: .accepted)
    }
    group.get("/v1/extensions/{productId}/{requestIdentifier}") { _, context in
      try JSONBody.response(
        try await actions.extensionStatus(
          productId: try context.parameters.require("productId"),
          requestIdentifier: try context.parameters.require("requestIdentifier"),
          apple: try configured()))
    }
    group.get("/v1/orders/{orderId}") { _, context in
      let apple = try configured()
      let orderId = try context.parameters.require("orderId")
      return try JSONBody.response(
        try await actions.lookUpOrder(orderId, apple: apple))
    }
  }

  private func configured() throws -> AppStoreServerAPIClient {
    guard let apple else { throw Self.notConfigured }
    return apple
  }

  static let notConfigured = APIError(
    .notImplemented, "not_configured",
    "this needs App Store Server API credentials (serve --key-id, --issuer-id, --p8)")
}
