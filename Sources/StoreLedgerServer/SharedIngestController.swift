import AppStoreVerification
import Foundation
import Hummingbird
import StoreLedger

/// The one webhook URL (and transaction intake) of a server of several apps: each payload goes
/// to the app whose bundle id it names, and that app's verifier then checks its signature,
/// chain and identity before anything is trusted or stored.
struct SharedIngestController: Sendable {
  let apps: [String: RunningApp]
  let bodyLimit: Int
  let metrics: AppMetrics

  init(apps: [RunningApp], bodyLimit: Int, metrics: ServerMetrics) {
    self.apps = Dictionary(apps.map { ($0.ledger.configuration.bundleId, $0) }) { first, _ in first
    }
    self.bodyLimit = bodyLimit
    self.metrics = metrics.app("")
  }

  /// The routes on `group`; the transaction route needs one of `ring`'s configured keys.
  func register(on group: RouterGroup<LedgerRequestContext>, ring: APIKeyRing) {
    group.post(RouterPath(IngestController.webhookPath)) { request, _ in
      let body = try await IngestController.notificationBody(request, limit: bodyLimit)
      guard let app = try app(named: body.signedPayload, kind: "notification") else {
        return try await evidence(body, in: apps.values.sorted { $0.name < $1.name })
      }
      return try await app.ingest(bodyLimit: bodyLimit).notification(body)
    }
    let protected = group.group().add(
      middleware: APIKeyMiddleware(ring: ring))
    protected.post(RouterPath(IngestController.transactionsPath)) { request, _ in
      let body = try await IngestController.transactionBody(request, limit: bodyLimit)
      guard let app = try app(named: body.signedTransaction, kind: "transaction") else {
        metrics.ingest(kind: "transaction", outcome: "rejected")
        throw APIError(.badRequest, "invalid_payload", "the signed data names no bundle id")
      }
      return try await app.ingest(bodyLimit: bodyLimit).transaction(body)
    }
  }

  /// A notification that names no app is kept as unrouted evidence by every app whose
  /// verifier accepts its chain and signature, where each app's operator sees it; answered
  /// with the first app's answer, or, when no app verifies it, the first refusal.
  private func evidence(_ body: IngestController.NotificationBody, in apps: [RunningApp])
    async throws -> Response
  {
    var answer: Response?
    var refusal: (any Error)?
    for app in apps {
      do {
        let response = try await app.ingest(bodyLimit: bodyLimit).notification(body)
        if answer == nil { answer = response }
      } catch {
        if refusal == nil { refusal = error }
      }
    }
    if let answer { return answer }
    throw refusal ?? APIError(.badRequest, "invalid_payload", "the notification names no app")
  }

  /// The app the (not yet verified) signed data names; the request is counted under it. Nil
  /// when it names no bundle id (a notification whose body this release cannot read).
  private func app(named jws: String, kind: String) throws -> RunningApp? {
    let claims: SignedDataKind.Claims
    do {
      claims = try SignedDataKind.claims(of: jws)
    } catch {
      metrics.ingest(kind: kind, outcome: "rejected")
      metrics.verificationFailure(code: error.code.rawValue)
      throw APIError(
        LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue))
    }
    guard let bundleId = claims.bundleId else { return nil }
    guard let app = apps[bundleId] else {
      metrics.ingest(kind: kind, outcome: "rejected")
      throw APIError.unknownApp("no app of this server has the bundle id the signed data names")
    }
    RequestApp.current?.set(app.name)
    return app
  }
}
