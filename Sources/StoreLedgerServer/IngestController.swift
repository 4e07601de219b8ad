import AppStoreServerAPI
import Foundation
import HTTPTypes
import Hummingbird
import StoreLedger
import StoreLedgerCore

/// The writes: Apple's webhook, forwarded transactions, links and debits. Each answers only
/// after the event is durably stored (or found already stored), so a 2xx to Apple is safe.
struct IngestController: Sendable {
  let ledger: Ledger
  let metrics: AppMetrics
  let bodyLimit: Int
  /// Set App Account Token for links, when credentials are configured.
  var apple: AppStoreServerAPIClient? = nil

  struct NotificationBody: Decodable {
    let signedPayload: String
    /// The body as Apple sent it, when it was not the plain `{"signedPayload":"…"}` (a field
    /// added, other spacing): kept with the event, so a relay sends it on unchanged.
    var original: String? = nil

    private enum CodingKeys: String, CodingKey { case signedPayload }
  }

  struct TransactionBody: Decodable {
    let signedTransaction: String
    let appAccountToken: String?
  }

  struct LinkBody: Decodable {
    let originalTransactionId: String
    /// Move a purchase another account holds to this one.
    let transfer: Bool?
  }

  struct DebitBody: Decodable {
    let quantity: Int64
  }

  struct Stored: Encodable {
    let streamId: String
    let streamVersion: Int64
    let idempotencyKey: String
    let duplicate: Bool
    let notificationType: String?
    /// A verified notification that names no app: kept as evidence, granting nothing.
    let unrouted: Bool?
    /// False for a notification whose type or body this release does not know.
    let understood: Bool?

    init(_ ingested: IngestReceipt) {
      unrouted = ingested.notificationType == nil ? nil : ingested.unrouted
      understood = ingested.notificationType == nil ? nil : ingested.understood
      streamId = ingested.streamId
      streamVersion = ingested.streamVersion
      idempotencyKey = ingested.idempotencyKey
      duplicate = ingested.wasDuplicate
      notificationType = ingested.notificationType
    }
  }

  static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

  static let webhookPath = "/v1/notifications/appstore"
  static let transactionsPath = "/v1/transactions"

  func registerWebhook(on group: RouterGroup<LedgerRequestContext>) {
    group.post(RouterPath(Self.webhookPath)) { request, _ in
      try await notification(try await Self.notificationBody(request, limit: bodyLimit))
    }
  }

  static func notificationBody(_ request: Request, limit: Int) async throws -> NotificationBody {
    var request = request
    let bytes = Array(try await request.collectBody(upTo: limit).readableBytesView)
    var body: NotificationBody
    do {
      body = try JSONDecoder().decode(NotificationBody.self, from: Data(bytes))
    } catch {
      throw APIError.invalidBody(
        #"the body is not an App Store notification ({"signedPayload": …})"#)
    }
    guard bytes != RelayDeliveryClaim.plainBody(body.signedPayload) else { return body }
    // One body, one reading: a member named twice is read as the first by this decoder and as
    // the last by others (a relay target in Python, JavaScript or Go would act on a payload
    // nobody verified), so such a body is refused before anything is stored.
    if let name = DuplicateKeyScan.duplicate(in: bytes) {
      throw APIError.invalidBody(
        "the body names `\(name)` twice, and readers disagree on which counts: send each member once; nothing was stored"
      )
    }
    if let text = String(validating: bytes, as: UTF8.self), !text.contains("\u{0}") {
      body.original = text
    }
    return body
  }

  static func transactionBody(_ request: Request, limit: Int) async throws -> TransactionBody {
    try await JSONBody.decode(
      TransactionBody.self, from: request, limit: limit,
      what: #"a signed transaction ({"signedTransaction": …, "appAccountToken": …})"#)
  }

  func notification(_ body: NotificationBody) async throws -> Response {
    try await recorded("notification", created: .ok) {
      try await ledger.ingest(notification: body.signedPayload, body: body.original)
    }
  }

  func transaction(_ body: TransactionBody) async throws -> Response {
    try await recorded("transaction") {
      try await ledger.ingest(
        signedTransaction: body.signedTransaction, appAccountToken: body.appAccountToken)
    }
  }

  func registerCommands(on group: RouterGroup<LedgerRequestContext>) {
    group.post(RouterPath(Self.transactionsPath)) { request, _ in
      try await transaction(try await Self.transactionBody(request, limit: bodyLimit))
    }
    group.post("/v1/accounts/{token}/links") { request, context in
      let token = try context.parameters.require("token")
      let body = try await JSONBody.decode(
        LinkBody.self, from: request, limit: bodyLimit,
        what: #"a link ({"originalTransactionId": …, "transfer": false})"#)
      return try await recorded("link") {
        try await ledger.link(
          appAccountToken: token, originalTransactionId: body.originalTransactionId, apple: apple,
          transfer: body.transfer ?? false)
      }
    }
    group.post("/v1/accounts/{token}/consumables/{productId}/debits") { request, context in
      let token = try context.parameters.require("token")
      let product = try context.parameters.require("productId")
      guard let key = request.headers[Self.idempotencyKey], !key.isEmpty else {
        throw APIError.invalidRequest("a debit needs an Idempotency-Key header")
      }
      let body = try await JSONBody.decode(
        DebitBody.self, from: request, limit: bodyLimit, what: #"a debit ({"quantity": …})"#)
      return try await recorded("debit") {
        try await ledger.debit(
          appAccountToken: token, productId: product, quantity: body.quantity,
          idempotencyKey: key)
      }
    }
  }

  /// How an ingest that stored (or found) its event is counted: `unrouted` and
  /// `not_understood` for notifications this release cannot act on, whose count an operator
  /// watches.
  static func outcome(_ ingested: IngestReceipt) -> String {
    if ingested.wasDuplicate { return "duplicate" }
    if ingested.unrouted { return "unrouted" }
    return ingested.understood ? "stored" : "not_understood"
  }

  /// Runs one ingest, counts its outcome and times it; `created` (201 unless said otherwise;
  /// Apple's webhook wants 200) when stored, 200 when it was stored before.
  private func recorded(
    _ kind: String, created: HTTPResponse.Status = .created,
    _ ingest: () async throws -> IngestReceipt
  ) async throws -> Response {
    let start = ContinuousClock.now
    do {
      let ingested = try await ingest()
      let elapsed = ContinuousClock.now - start
      metrics.append(duration: elapsed)
      metrics.ingest(
        kind: kind, outcome: Self.outcome(ingested), notificationType: ingested.notificationType)
      return try JSONBody.response(Stored(ingested), status: ingested.wasDuplicate ? .ok : created)
    } catch let error as LedgerError {
      metrics.ingest(kind: kind, outcome: "rejected")
      if error.code == .verificationFailed {
        metrics.verificationFailure(code: error.verificationCode ?? "unknown")
      }
      throw error
    }
  }
}
