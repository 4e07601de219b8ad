import AppStoreSimulator
import AppStoreVerification
import NIOHTTP1
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import AppStoreServerAPI

/// The deprecated version-1 endpoints Apple's libraries still call by default or offer, as
/// Apple answers them: Get Transaction History v1 leaves out finished consumables, Send
/// Consumption Information v1 takes integer codes and answers Apple's field errors.
@Suite struct SimulatorVersionOneTests {
  typealias H = SimulatorHarness
  typealias F = LedgerFixtures

  /// A subscription, a consumable the app finished, a consumable refunded since.
  static func store() -> SimulatedAppStore {
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: H.bundleId, appAppleId: 1_234_567_890), signer: H.pki,
      now: F.t(40))
    store.put(F.transaction("7001", purchased: 30, expires: 60), customer: "c1")
    store.put(
      F.transaction("7002", product: "gems", type: .consumable, purchased: 31), customer: "c1")
    store.put(
      F.transaction("7003", product: "gems", type: .consumable, purchased: 32, revoked: 35),
      customer: "c1")
    return store
  }

  static func ids(_ response: HistoryResponse) throws -> [String] {
    try (response.signedTransactions ?? []).map { jws in
      try #require(UnverifiedJWS<JWSTransactionDecodedPayload>(jws).claims.transactionId)
    }.sorted()
  }

  @Test func historyVersionOneLeavesOutFinishedConsumables() async throws {
    try await H.withClient(Self.store()) { client, _ in
      let v2: HistoryResponse = try await client.get("/inApps/v2/history/7001", query: [])
      let v1: HistoryResponse = try await client.get("/inApps/v1/history/7001", query: [])
      #expect(try Self.ids(v2) == ["7001", "7002", "7003"])
      #expect(try Self.ids(v1) == ["7001", "7003"], "a refunded consumable stays listed")
      #expect(v1.hasMore == false && v1.revision != nil)
      let unknown = await #expect(throws: AppStoreAPIError.self) {
        let _: HistoryResponse = try await client.get("/inApps/v1/history/9999", query: [])
      }
      #expect(unknown?.httpStatus == 400 || unknown?.httpStatus == 404)
    }
  }

  static func body(_ change: (inout ConsumptionRequestV1) -> Void = { _ in }) throws -> Data {
    var request = ConsumptionRequestV1()
    request.customerConsented = true
    request.consumptionStatus = 2
    request.platform = 1
    request.sampleContentProvided = false
    request.deliveryStatus = 0
    request.appAccountToken = ""
    request.accountTenure = 3
    request.playTime = 0
    request.lifetimeDollarsRefunded = 0
    request.lifetimeDollarsPurchased = 2
    request.userStatus = 1
    request.refundPreference = 0
    change(&request)
    return try JSONEncoder().encode(request)
  }

  @Test func consumptionVersionOneAnswersApplesFieldErrorsAndRecordsTheRest() async throws {
    let store = Self.store()
    try await H.withClient(store) { client, _ in
      let refusals: [(APIErrorCode, (inout ConsumptionRequestV1) -> Void)] = [
        (.invalidAccountTenure, { $0.accountTenure = 8 }),
        (.invalidAppAccountToken, { $0.appAccountToken = "not-a-uuid" }),
        (.invalidConsumptionStatus, { $0.consumptionStatus = 4 }),
        (.invalidCustomerConsented, { $0.customerConsented = false }),
        (.invalidDeliveryStatus, { $0.deliveryStatus = 6 }),
        (.invalidLifetimeDollarsPurchased, { $0.lifetimeDollarsPurchased = nil }),
        (.invalidLifetimeDollarsRefunded, { $0.lifetimeDollarsRefunded = -1 }),
        (.invalidPlatform, { $0.platform = 3 }),
        (.invalidPlayTime, { $0.playTime = 8 }),
        (.invalidSampleContentProvided, { $0.sampleContentProvided = nil }),
        (.invalidUserStatus, { $0.userStatus = 5 }),
        (.invalidRefundPreference, { $0.refundPreference = 4 }),
      ]
      for (code, change) in refusals {
        let error = await #expect(throws: AppStoreAPIError.self) {
          let _: NoContent = try await client.send(
            "/inApps/v1/transactions/consumption/7002", query: [], method: .PUT,
            body: try Self.body(change))
        }
        #expect(error?.apiErrorCode == code, "\(code.rawValue)")
        #expect(error?.httpStatus == 400)
      }
      #expect(store.consumptionAnswers().isEmpty, "nothing recorded from a refused body")
      let _: NoContent = try await client.send(
        "/inApps/v1/transactions/consumption/7002", query: [], method: .PUT,
        body: try Self.body { $0.refundPreference = 2 })
      let answer = try #require(store.consumptionAnswers().first)
      #expect(answer.transactionId == "7002")
      #expect(answer.information.deliveryStatus == .delivered)
      #expect(answer.information.consumptionPercentage == 50_000, "partially consumed")
      #expect(answer.information.refundPreference == .decline)
      let missing = await #expect(throws: AppStoreAPIError.self) {
        let _: NoContent = try await client.send(
          "/inApps/v1/transactions/consumption/9999", query: [], method: .PUT,
          body: try Self.body())
      }
      #expect(missing?.apiErrorCode == .transactionIdNotFound)
    }
  }
}
