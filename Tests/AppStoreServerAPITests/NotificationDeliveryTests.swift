import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import Foundation
import Hummingbird
import HummingbirdTesting
import StoreLedgerCore
import StoreLedgerTestSupport
import Synchronization
import Testing

/// Notifications delivered to a real webhook on loopback: Apple's retry schedule, faults,
/// and what Get Notification History then reports.
@Suite struct NotificationDeliveryTests {
  typealias H = SimulatorHarness

  /// A webhook that answers 500 to the first `failures` deliveries of each notification.
  final class Webhook: Sendable {
    let failures: Int
    let received = Mutex<[String]>([])
    init(failures: Int) { self.failures = failures }

    func run(_ body: @Sendable (String) async throws -> Void) async throws {
      let router = Router()
      router.post("/hook") { request, _ -> HTTPResponse.Status in
        let bytes = try await request.body.collect(upTo: 1 << 20)
        let payload =
          try JSONDecoder().decode(
            [String: String].self, from: Data(bytes.readableBytesView))["signedPayload"] ?? ""
        let seen = self.received.withLock { received in
          received.append(payload)
          return received.filter { $0 == payload }.count
        }
        return seen <= self.failures ? .internalServerError : .ok
      }
      try await Application(router: router, logger: H.logger).test(.live) { client in
        try await body("http://127.0.0.1:\(client.port!)/hook")
      }
    }
  }

  static func transaction(_ index: Int) -> JWSTransactionDecodedPayload {
    H.customerHistory(count: index + 1)[index]
  }

  @Test func productionRetriesOnApplesScheduleUntilTheWebhookAccepts() async throws {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: H.bundleId, appAppleId: 1_234_567_890, environment: .production),
      signer: H.pki, now: LedgerFixtures.t(400))
    for index in 0..<3 {
      store.put(Self.transaction(index), customer: "customer-1")
      store.notify(.oneTimeCharge, transaction: Self.transaction(index))
    }
    let webhook = Webhook(failures: 2)
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: H.pki.trustedRoots, bundleId: H.bundleId, appAppleId: 1_234_567_890,
        environment: .production))
    try await webhook.run { url in
      await NotificationDeliverer(
        store: store, webhookURL: url, hour: .milliseconds(2), logger: H.logger
      )
      .deliverPending()
      #expect(webhook.received.withLock { $0.count } == 9)
      try await H.withClient(store, verifier: verifier) { client, _ in
        var items: [NotificationHistoryPage.Item] = []
        for try await page in client.notificationHistory(
          NotificationHistoryRequest(
            startDate: LedgerFixtures.t(399), endDate: LedgerFixtures.t(401)))
        { items += page.items }
        #expect(items.count == 3)
        for item in items {
          #expect(
            item.sendAttempts.map(\.sendAttemptResult) == [
              .unsuccessfulHTTPResponseCode, .unsuccessfulHTTPResponseCode, .success,
            ])
          let start = LedgerFixtures.t(400).milliseconds
          #expect(
            item.sendAttempts.map { $0.attemptDate!.milliseconds - start } == [
              0, 3_600_000, 13 * 3_600_000,
            ])
          #expect(item.notification.payload.notificationType == .oneTimeCharge)
        }
      }
    }
  }

  @Test func sandboxDropsShowUpAsOnlyFailuresAndPagesOf20() async throws {
    let store = H.store()
    for index in 0..<25 {
      store.put(Self.transaction(index), customer: "customer-1")
      store.notify(.oneTimeCharge, transaction: Self.transaction(index))
    }
    let webhook = Webhook(failures: 0)
    try await webhook.run { url in
      await NotificationDeliverer(
        store: store, webhookURL: url, faults: DeliveryFaults(dropFraction: 0.4, seed: 7),
        logger: H.logger
      ).deliverPending()
      let received = Set(webhook.received.withLock { $0 })
      #expect(received.count > 0 && received.count < 25)
      try await H.withClient(store) { client, _ in
        var request = NotificationHistoryRequest(
          startDate: LedgerFixtures.t(399), endDate: LedgerFixtures.t(401))
        var pages: [NotificationHistoryPage] = []
        for try await page in client.notificationHistory(request) { pages.append(page) }
        #expect(pages.map(\.items.count) == [20, 5])
        request.onlyFailures = true
        var failed: [NotificationHistoryPage.Item] = []
        for try await page in client.notificationHistory(request) { failed += page.items }
        #expect(failed.count == 25 - received.count)
        #expect(failed.allSatisfy { $0.sendAttempts.map(\.sendAttemptResult) == [.timedOut] })
        let failedUUIDs = Set(failed.map { $0.notification.payload.notificationUUID })
        let deliveredUUIDs = Set(
          store.notifications().filter(\.delivered).map { Optional($0.uuid) })
        #expect(failedUUIDs.isDisjoint(with: deliveredUUIDs))
        #expect(deliveredUUIDs.count == received.count)
      }
    }
  }

  @Test func anUnreachableWebhookIsRecordedAsFailedAttempts() async throws {
    let store = H.store()
    for index in 0..<20 {
      store.put(Self.transaction(index), customer: "customer-1")
      store.notify(.oneTimeCharge, transaction: Self.transaction(index))
    }
    await NotificationDeliverer(
      store: store, webhookURL: "http://127.0.0.1:9/hook", requestTimeout: .seconds(2),
      logger: H.logger
    ).deliverPending()
    let attempts = store.notifications().map { $0.attempts.map(\.sendAttemptResult) }
    #expect(attempts.allSatisfy { $0 == [.socketIssue] || $0 == [.timedOut] }, "\(attempts)")
  }

  @Test func aBadHistoryRequestGetsApplesCode() async throws {
    let store = H.store()
    try await H.withClient(store) { client, _ in
      var request = NotificationHistoryRequest(
        startDate: LedgerFixtures.t(2), endDate: LedgerFixtures.t(1))
      var error = await #expect(throws: AppStoreAPIError.self) {
        for try await _ in client.notificationHistory(request) {}
      }
      #expect(error?.apiErrorCode == .startDateAfterEndDate)
      request = NotificationHistoryRequest(
        startDate: LedgerFixtures.t(1), endDate: LedgerFixtures.t(2))
      request.transactionId = "2000000100000000"
      request.notificationType = .refund
      error = await #expect(throws: AppStoreAPIError.self) {
        for try await _ in client.notificationHistory(request) {}
      }
      #expect(error?.apiErrorCode == .multipleFiltersSupplied)
    }
  }
}
