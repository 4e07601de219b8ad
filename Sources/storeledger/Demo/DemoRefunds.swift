import AppStoreServerAPI
import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import StoreLedger
import StoreLedgerCore

/// The demo's refund requests, played live after the simulated months: customers ask Apple
/// for refunds, Apple's CONSUMPTION_REQUESTs reach the webhook, the worker answers each from
/// the ledger by the demo's policy, Apple decides, and the decisions reach the webhook too.
/// The counts come back over HTTP (`GET /v1/consumption-requests`), as an operator reads them.
/// The requests Apple sent during the simulated months reached the webhook with their twelve
/// hours already gone in simulated time before any worker ran: the worker closes them as
/// expired, and the demo counts them apart.
struct DemoRefunds {
  let store: SimulatedAppStore
  let ledger: Ledger
  let api: AppStoreServerAPIClient
  let webhook: String
  let port: Int
  let bearer: String
  let count: Int
  let logger: Logger

  /// The demo app asks for consent and prefers prorated refunds of subscriptions.
  static let policy = ConsumptionPolicy(
    customerConsented: true, autoRenewable: .grantProrated, nonConsumable: .decline)

  func run() async throws -> DemoSummary.Consumption {
    // An hour past the simulated months: refunds granted now leave the answers at the end
    // of the simulation (what the demo compares with the truth) as they were.
    store.advance(to: Timestamp(milliseconds: store.now.milliseconds + 3_600_000))
    let liveFrom = store.now.milliseconds
    for id in store.refundCandidates(count) { store.requestRefund(of: id) }
    let deliverer = NotificationDeliverer(store: store, webhookURL: webhook, logger: logger)
    await deliverer.deliverPending()
    let worker = ConsumptionWorker(
      ledger: ledger, client: api,
      configuration: ConsumptionWorkerConfiguration(
        policy: Self.policy, lease: .seconds(30), initialBackoff: .milliseconds(200),
        now: { [store] in store.now.date }),
      logger: logger)
    for _ in 0..<50 {
      let pass = await worker.runOnce()
      await deliverer.deliverPending()
      if try await ConsumptionRequests(ledger: ledger).metrics().pending == 0 { break }
      if pass.acted == 0 { try await Task.sleep(for: .milliseconds(200)) }
    }
    await deliverer.deliverPending()
    return try await countsOverHTTP(liveFrom: liveFrom)
  }

  private func countsOverHTTP(liveFrom: Int64) async throws -> DemoSummary.Consumption {
    var request = HTTPClientRequest(
      url: "http://127.0.0.1:\(port)/v1/consumption-requests?limit=1000")
    request.headers.add(name: "Authorization", value: "Bearer \(bearer)")
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    struct Listing: Decodable { let requests: [ConsumptionRequestReport] }
    guard response.status == .ok,
      let listing = try? JSONDecoder().decode(Listing.self, from: Data(body.readableBytesView))
    else { throw DemoError("GET /v1/consumption-requests answered \(response.status.code)") }
    var counts = DemoSummary.Consumption()
    for report in listing.requests {
      guard report.requestedAt.milliseconds >= liveFrom else {
        counts.simulatedYear += 1
        continue
      }
      counts.received += 1
      if report.state == .answered { counts.answered += 1 }
      if report.late { counts.late += 1 }
      if report.state == .expired { counts.expired += 1 }
      if report.state == .failed { counts.failed += 1 }
      guard report.state == .answered, let decision = report.appleDecision else { continue }
      if decision.refunded { counts.refunded += 1 } else { counts.declined += 1 }
    }
    return counts
  }
}

struct DemoError: Error, CustomStringConvertible {
  let description: String
  init(_ description: String) { self.description = description }
}
