import AppStoreServerAPI
import AppStoreSimulator
import AppStoreVerification
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// The App Store Server API client against the simulated App Store on loopback: paging,
/// incremental sync, filters, statuses, refunds, errors, rate limits and bearer tokens.
@Suite struct ServerAPIClientTests {
  typealias H = SimulatorHarness
  static let customerId = "2000000100000000"

  static func storeWithHistory(_ count: Int) -> (SimulatedAppStore, [JWSTransactionDecodedPayload])
  {
    let store = H.store()
    let history = H.customerHistory(count: count)
    for transaction in history { store.put(transaction, customer: "customer-1") }
    for transaction in H.customerHistory(count: 30, base: 2_000_000_900_000_000) {
      store.put(transaction, customer: "customer-2")
    }
    return (store, history)
  }

  static func ids(_ pages: [TransactionHistoryPage]) -> [String] {
    pages.flatMap { $0.transactions.map { $0.payload.transactionId ?? "" } }
  }

  static func collect(_ pages: Pages<TransactionHistoryPage>) async throws
    -> [TransactionHistoryPage]
  {
    var collected: [TransactionHistoryPage] = []
    for try await page in pages { collected.append(page) }
    return collected
  }

  @Test func aHistoryOf500TransactionsComesInPagesOf20AllVerified() async throws {
    let (store, history) = Self.storeWithHistory(500)
    try await H.withClient(store) { client, _ in
      let pages = try await Self.collect(client.transactionHistory(Self.customerId))
      #expect(pages.count == 25)
      #expect(pages.dropLast().allSatisfy { $0.transactions.count == 20 && $0.hasMore })
      #expect(pages.last?.hasMore == false)
      #expect(Self.ids(pages) == history.map { $0.transactionId! })
      #expect(pages.allSatisfy { $0.environment == .sandbox })
      // Any of the customer's ids finds the same history; another customer's does not mix in.
      let viaLast = try await Self.collect(client.transactionHistory(history[499].transactionId!))
      #expect(Self.ids(viaLast) == Self.ids(pages))
    }
  }

  @Test func aStoredRevisionFetchesOnlyWhatChangedSince() async throws {
    let (store, history) = Self.storeWithHistory(45)
    try await H.withClient(store) { client, _ in
      let first = try await Self.collect(client.transactionHistory(Self.customerId))
      let revision = try #require(first.last?.revision)
      // Nothing changed: nothing comes.
      let none = try await Self.collect(
        client.transactionHistory(Self.customerId, revision: revision))
      #expect(Self.ids(none).isEmpty && none.last?.hasMore == false)
      // A refund of an old transaction and two new purchases.
      var refunded = history[3]
      refunded.revocationDate = LedgerFixtures.t(300)
      refunded.revocationReason = .appIssue
      store.put(refunded, customer: "customer-1")
      let new = H.customerHistory(count: 2, base: 2_000_000_100_500_000)
      for transaction in new { store.put(transaction, customer: "customer-1") }
      let changes = try await Self.collect(
        client.transactionHistory(Self.customerId, revision: revision))
      #expect(Self.ids(changes) == [history[3].transactionId!] + new.map { $0.transactionId! })
      #expect(
        changes.flatMap(\.transactions).first?.payload.revocationDate == LedgerFixtures.t(300))
    }
  }

  @Test func everyFilterSelectsWhatItSays() async throws {
    let (store, history) = Self.storeWithHistory(120)
    var requests: [TransactionHistoryRequest] = []
    func make(_ change: (inout TransactionHistoryRequest) -> Void) {
      var request = TransactionHistoryRequest()
      change(&request)
      requests.append(request)
    }
    make { $0.productIds = ["gems.100", "lifetime"] }
    make { $0.productTypes = [.consumable] }
    make { $0.productTypes = [.autoRenewable, .nonConsumable] }
    make { $0.subscriptionGroupIdentifiers = ["group.premium"] }
    make { $0.inAppOwnershipType = .familyShared }
    make { $0.revoked = true }
    make { $0.revoked = false }
    make {
      $0.startDate = LedgerFixtures.t(10)
      $0.endDate = LedgerFixtures.t(40)
    }
    make {
      $0.productTypes = [.autoRenewable]
      $0.revoked = false
      $0.sort = .descending
    }
    let cases = requests
    try await H.withClient(store) { client, _ in
      for request in cases {
        let pages = try await Self.collect(
          client.transactionHistory(Self.customerId, request: request))
        var expected = history.filter(request.admits).map { $0.transactionId! }
        if request.sort == .descending { expected.reverse() }
        #expect(!expected.isEmpty)
        #expect(Self.ids(pages) == expected, "\(request.queryItems)")
      }
    }
  }

  @Test func transactionInfoStatusesAndRefunds() async throws {
    let (store, history) = Self.storeWithHistory(60)
    store.put(
      SimulatedSubscription(
        originalTransactionId: "2000000100000000",
        renewalInfo: LedgerFixtures.renewal("2000000100000000", signed: 300, retry: true),
        status: .billingRetry))
    store.put(
      SimulatedSubscription(
        originalTransactionId: "2000000100000001",
        renewalInfo: LedgerFixtures.renewal("2000000100000001", signed: 300)))
    try await H.withClient(store) { client, _ in
      let info = try await client.transactionInfo(history[7].transactionId!)
      #expect(info.payload.productId == history[7].productId)
      #expect(info.payload.signedDate == store.now)

      let statuses = try await client.subscriptionStatuses(Self.customerId)
      #expect(statuses.map(\.originalTransactionId) == ["2000000100000001", "2000000100000000"])
      #expect(statuses.map(\.status) == [.expired, .billingRetry])
      #expect(statuses.last?.renewalInfo.payload.isInBillingRetryPeriod == true)
      let retrying = try await client.subscriptionStatuses(
        Self.customerId, statuses: [.billingRetry])
      #expect(retrying.map(\.originalTransactionId) == ["2000000100000000"])

      let refunds = try await Self.collect(client.refundHistory(Self.customerId))
      let expected = history.filter { $0.revocationDate != nil }.sorted {
        $0.revocationDate! < $1.revocationDate!
      }
      #expect(Self.ids(refunds) == expected.map { $0.transactionId! })
    }
  }

  @Test func applesErrorsComeTypedWithTheirCodes() async throws {
    let (store, _) = Self.storeWithHistory(5)
    try await H.withClient(store) { client, url in
      let missing = await #expect(throws: AppStoreAPIError.self) {
        try await client.transactionInfo("1999999999999999")
      }
      #expect(missing?.code == .apiError && missing?.httpStatus == 404)
      #expect(missing?.apiErrorCode == .transactionIdNotFound && missing?.isRetryable == false)
      let badRevision = await #expect(throws: AppStoreAPIError.self) {
        _ = try await Self.collect(client.transactionHistory(Self.customerId, revision: "garbage!"))
      }
      #expect(badRevision?.apiErrorCode == .invalidRequestRevision)
      // A query Apple refuses, sent by hand.
      let token = try H.apiKey.token()
      var request = HTTPClientRequest(
        url: url + "/inApps/v2/history/\(Self.customerId)?sort=SIDEWAYS")
      request.headers.add(name: "Authorization", value: "Bearer \(token)")
      let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
      let body = try await response.body.collect(upTo: 1 << 16)
      let error = try JSONDecoder().decode(
        APIErrorResponse.self, from: Data(body.readableBytesView))
      #expect(response.status.code == 400 && error.errorCode == .invalidSort)
    }
  }

  @Test func rateLimitedCallsWaitForRetryAfterAndSucceed() async throws {
    let (store, history) = Self.storeWithHistory(5)
    let id = history[0].transactionId!
    // One call per 10 s: the second, right after the first, is refused.
    try await H.withClient(store, rateLimit: 0.1, maximumAttempts: 1) { client, _ in
      _ = try await client.transactionInfo(id)
      let refused = await #expect(throws: AppStoreAPIError.self) {
        try await client.transactionInfo(id)
      }
      #expect(refused?.code == .rateLimited && refused?.apiErrorCode == .rateLimitExceeded)
    }
    try await H.withClient(store, rateLimit: 2) { client, _ in
      for _ in 0..<6 {
        let info = try await client.transactionInfo(id)
        #expect(info.payload.transactionId == id)
      }
    }
  }

  @Test func internalErrorsAreRetriedWithBackoff() async throws {
    let (store, history) = Self.storeWithHistory(3)
    let id = history[0].transactionId!
    try await H.withClient(store, internalErrors: 1, maximumAttempts: 1) { client, _ in
      let error = await #expect(throws: AppStoreAPIError.self) {
        try await client.transactionInfo(id)
      }
      #expect(error?.httpStatus == 500 && error?.apiErrorCode == .generalInternalRetryable)
      #expect(error?.isRetryable == true)
    }
    try await H.withClient(store, internalErrors: 3, maximumAttempts: 4) { client, _ in
      let info = try await client.transactionInfo(id)
      #expect(info.payload.transactionId == id)
    }
  }

  @Test func tokensAppleWouldRefuseAreRefused() async throws {
    let (store, history) = Self.storeWithHistory(3)
    let id = history[0].transactionId!
    let strangers = [
      APIKey(
        keyId: "UNKNOWN001", issuerId: H.apiKey.issuerId, bundleId: H.bundleId,
        privateKey: H.privateKey),
      APIKey(
        keyId: H.apiKey.keyId, issuerId: "someone-else", bundleId: H.bundleId,
        privateKey: H.privateKey),
      APIKey(
        keyId: H.apiKey.keyId, issuerId: H.apiKey.issuerId, bundleId: "com.other.app",
        privateKey: H.privateKey),
    ]
    for key in strangers {
      try await H.withClient(store, key: key) { client, _ in
        let error = await #expect(throws: AppStoreAPIError.self) {
          try await client.transactionInfo(id)
        }
        #expect(error?.code == .unauthorized && error?.httpStatus == 401)
      }
    }
    try await H.withClient(store) { _, url in
      let now = Int64(Date().timeIntervalSince1970)
      let expired = APIToken(
        keyId: H.apiKey.keyId, issuerId: H.apiKey.issuerId, bundleId: H.bundleId,
        issuedAt: now - 600, expiresAt: now - 300)
      let wrongAudience = APIToken(
        keyId: H.apiKey.keyId, issuerId: H.apiKey.issuerId, bundleId: H.bundleId,
        issuedAt: now, expiresAt: now + 300, audience: "appstoreconnect-v2")
      for token in [expired, wrongAudience] {
        var request = HTTPClientRequest(url: url + "/inApps/v1/transactions/\(id)")
        request.headers.add(
          name: "Authorization", value: "Bearer \(try token.signed(with: H.privateKey))")
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        #expect(response.status.code == 401)
      }
    }
  }

  @Test func dataSignedByAnotherPKIIsNeverReturned() async throws {
    let (store, history) = Self.storeWithHistory(3)
    try await H.withClient(store, verifier: try H.verifier(trusting: try TestPKI())) { client, _ in
      let error = await #expect(throws: AppStoreAPIError.self) {
        try await client.transactionInfo(history[0].transactionId!)
      }
      #expect(error?.code == .unverifiedData)
    }
  }
}
