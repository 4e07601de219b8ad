import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StoreLedgerCore

/// What Look Up Order ID found, with what the ledger makes of it.
public struct OrderReport: Sendable, Encodable {
  public struct Purchase: Sendable, Encodable {
    public var transactionId: String
    public var originalTransactionId: String?
    public var productId: String?
    public var type: ProductType?
    public var purchaseDate: Timestamp?
    public var revocationDate: Timestamp?
    /// The log did not hold this transaction before the lookup.
    public var newToTheLedger: Bool
  }

  public struct Account: Sendable, Encodable {
    public var appAccountToken: String
    public var entitlements: [EntitlementView]
  }

  public var orderId: String
  public var purchases: [Purchase]
  /// The accounts that hold the order's purchases, with what they are entitled to now.
  public var accounts: [Account]
  /// Purchases no account holds (link one with `POST /v1/accounts/{token}/links`).
  public var unlinked: [String]
}

extension AppleActions {
  /// Look Up Order ID for customer support: verifies the order's transactions, stores the
  /// ones the log lacks, and says which accounts hold them and what those are entitled to.
  /// An order Apple does not know is `not_found`. The first lookup of an order records which
  /// transactions it holds (stream `order:<orderId>`, so support finds the customer by order
  /// id); looking it up again records nothing more while Apple's answer stays the same.
  public func lookUpOrder(_ orderId: String, apple: AppStoreServerAPIClient, at time: Date = Date())
    async throws(LedgerError) -> OrderReport
  {
    let orderId = orderId.trimmingCharacters(in: .whitespaces)
    guard !orderId.isEmpty, orderId.count <= 64,
      orderId.unicodeScalars.allSatisfy({ $0.isASCII && CharacterSet.alphanumerics.contains($0) })
    else {
      throw LedgerError(
        .invalidRequest, "an order id is letters and digits, as on the receipt (e.g. MK5TTTVWJH)")
    }
    let found: [VerifiedTransaction]
    do {
      let answer = try await apple.lookUpOrder(orderId)
      guard answer.status == .valid, !answer.transactions.isEmpty else {
        throw LedgerError(
          .notFound,
          "Apple knows no order with that id; check it against the customer's receipt email")
      }
      found = answer.transactions
    } catch let error as LedgerError {
      throw error
    } catch let error as AppStoreAPIError where error.httpStatus == 404 && error.apiErrorCode == nil
    {
      throw LedgerError(
        .notFound,
        "Apple offers Look Up Order ID in Production only: no order is found in the Sandbox")
    } catch {
      throw LedgerError.apple(error, doing: "looking up the order")
    }
    var purchases: [OrderReport.Purchase] = []
    for transaction in found {
      let stored = try await ingestion.ingest(
        signedTransaction: transaction.compactJWS, source: "order-lookup", freshlyFetched: true)
      let payload = transaction.payload
      purchases.append(
        .init(
          transactionId: payload.transactionId ?? "",
          originalTransactionId: payload.originalTransactionId,
          productId: payload.productId, type: payload.type, purchaseDate: payload.purchaseDate,
          revocationDate: payload.revocationDate, newToTheLedger: !stored.wasDuplicate))
    }
    try await recordLookup(orderId, purchases: purchases, at: time)
    return try await report(orderId, purchases, at: time)
  }

  private func report(_ orderId: String, _ purchases: [OrderReport.Purchase], at time: Date)
    async throws(LedgerError) -> OrderReport
  {
    var tokens: Set<String> = []
    var unlinked: [String] = []
    for purchase in purchases {
      let chain = purchase.originalTransactionId ?? purchase.transactionId
      if let token = try await links.holder(ofChain: chain) {
        tokens.insert(token)
      } else {
        unlinked.append(purchase.transactionId)
      }
    }
    var accounts: [OrderReport.Account] = []
    for token in tokens.sorted() {
      accounts.append(
        .init(
          appAccountToken: token,
          entitlements: try await summaries.summary(for: token, at: time).entitlements)
      )
    }
    return OrderReport(
      orderId: orderId, purchases: purchases, accounts: accounts, unlinked: unlinked)
  }

  private func recordLookup(_ orderId: String, purchases: [OrderReport.Purchase], at time: Date)
    async throws(LedgerError)
  {
    struct Lookup: Encodable {
      let orderId: String
      let transactionIds: [String]
      let newToTheLedger: Int
      let at: Timestamp
    }
    try await recordAction(
      EventTypes.orderLookedUp, member: "orderLookedUp",
      body: Lookup(
        orderId: orderId, transactionIds: purchases.map(\.transactionId),
        newToTheLedger: purchases.filter(\.newToTheLedger).count, at: Timestamp(time)),
      stream: "order:\(orderId)",
      key: "order:\(orderId):" + purchases.map(\.transactionId).sorted().joined(separator: ","))
  }
}
