import AppStoreServerAPI
import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// An order id from the customer's receipt e-mail that the ledger has not looked up yet: the
/// search offers to look it up at Apple (a POST: it asks Apple and records the order in the
/// log), then opens the customer.
extension ConsoleController {
  func registerOrderLookup(on group: RouterGroup<LedgerRequestContext>) {
    group.post(RouterPath("/console/orders")) { request, _ in
      guard Self.isSameOrigin(request) else {
        return message(
          "Refused", "A console form can only be sent from the console itself.",
          status: .forbidden)
      }
      return try await signedIn(request) {
        let form = String(buffer: try await request.body.collect(upTo: 4096))
        return try await lookUpOrder(Self.formValue("orderId", in: form) ?? "")
      }
    }
  }

  /// Whether `query` reads as an Apple order id (letters and digits, like MK5TTTVWJH) rather
  /// than a token or a transaction id.
  static func looksLikeOrderId(_ query: String) -> Bool {
    (6...32).contains(query.count)
      && query.unicodeScalars.allSatisfy { $0.isASCII && CharacterSet.alphanumerics.contains($0) }
      && query.contains(where: \.isLetter) && AppAccountToken.prefixFromAnySpelling(query) == nil
  }

  /// The page for a search that found nothing but may be an order id: a button that looks it
  /// up at Apple, or why it cannot be.
  func orderLookupOffer(_ query: String) -> Response? {
    guard Self.looksLikeOrderId(query) else { return nil }
    guard apple != nil else {
      return message(
        "Nothing matches",
        "No customer matches \"\(query)\" yet. If it is an order id from the customer's receipt "
          + "e-mail, it is found once looked up at Apple, and this server has no App Store "
          + "Server API credentials to ask with: an engineer can run `storeledger order "
          + "\(query)` with them, or search by the transaction id instead.",
        status: .notFound, query: query)
    }
    let document = page.document(title: "Nothing matches yet", query: query) { html in
      html.element(
        "p", ["class": "notice", "role": "status"],
        text:
          "No customer matches \"\(query)\". If it is an order id from the customer's receipt "
          + "e-mail, Apple can tell which purchases it holds.")
      if appleEnvironment == .sandbox {
        html.element(
          "p", ["id": "sandbox-note"],
          text:
            "This server asks Apple's Sandbox, and Apple answers Look Up Order ID in Production "
            + "only: in the Sandbox no order is found.")
      }
      html.element("form", ["method": "post", "action": "\(base)/orders"]) { html in
        html.void("input", ["type": "hidden", "name": "orderId", "value": query])
        html.element(
          "button", ["type": "submit", "id": "look-up-order"], text: "Look it up at Apple")
      }
    }
    return ConsolePage.response(document, status: .notFound)
  }

  private func lookUpOrder(_ orderId: String) async throws -> Response {
    guard let apple else {
      return message(
        "Order", "This server has no App Store Server API credentials to ask Apple with.",
        status: .notImplemented)
    }
    var report: OrderReport
    do {
      report = try await AppleActions(ledger: ledger).lookUpOrder(orderId, apple: apple)
    } catch {
      let status: HTTPResponse.Status =
        switch error.code {
        case .notFound: .notFound
        case .invalidRequest: .badRequest
        default: .badGateway
        }
      return message("Order \(orderId.prefix(32))", error.message, status: status, query: orderId)
    }
    if report.accounts.count == 1, let only = report.accounts.first {
      return ConsolePage.redirect(to: "\(base)/accounts/\(only.appAccountToken)")
    }
    report.purchases.sort { $0.transactionId < $1.transactionId }
    let document = page.document(title: "Order \(report.orderId)", query: orderId) { html in
      html.element(
        "p", ["id": "order-summary"],
        text:
          "Apple's order \(report.orderId) holds \(report.purchases.count) purchases; "
          + "\(report.accounts.count) customer accounts hold them.")
      html.element("ul") { html in
        for account in report.accounts {
          html.element("li") { html in
            html.element(
              "a", ["href": "\(base)/accounts/\(account.appAccountToken)"],
              text: account.appAccountToken)
          }
        }
      }
      if !report.unlinked.isEmpty {
        html.element(
          "p", ["id": "order-unlinked"],
          text:
            "No customer account holds \(report.unlinked.joined(separator: ", ")) yet: the app "
            + "links a purchase to its customer when it sends it, or the backend links it "
            + "(POST /v1/accounts/{token}/links).")
      }
    }
    return ConsolePage.response(document)
  }
}
