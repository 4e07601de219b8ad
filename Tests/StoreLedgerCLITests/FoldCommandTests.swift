import Foundation
import Testing

@Suite struct FoldCommandTests {
  static let scenarios = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("projections/scenarios")

  static func path(_ name: String) -> String { scenarios.appendingPathComponent(name).path }

  func jsonObject(_ text: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test func jsonHasTheDocumentedShape() throws {
    let result = try CommandLineRunner.run(
      ["fold", Self.path("08-grace-period.json"), "--json"])
    #expect(result.status == 0)
    let output = try jsonObject(result.standardOutput)
    #expect(output["asOf"] as? Int64 == 1_770_681_600_000)
    let subscription = try #require((output["subscriptions"] as? [[String: Any]])?.first)
    let keys = [
      "originalTransactionId", "productId", "subscriptionGroupIdentifier", "appAccountToken",
      "inAppOwnershipType", "status", "entitled", "expiresDate", "gracePeriodExpiresDate",
      "autoRenewStatus", "autoRenewProductId",
    ]
    #expect(Set(keys).isSubset(of: Set(subscription.keys)))
    #expect(subscription["status"] as? Int == 4)
    #expect(subscription["entitled"] as? Bool == true)
    for list in ["purchases", "consumables", "revocations", "entitlements"] {
      #expect(output[list] is [Any], "\(list)")
    }
    let entitlement = try #require((output["entitlements"] as? [[String: Any]])?.first)
    #expect(
      Set(["appAccountToken", "entitlement", "active", "expiresDate", "source"]).isSubset(
        of: Set(entitlement.keys)))
  }

  @Test func asOfOverridesTheScenarioTime() throws {
    let later = try CommandLineRunner.run(
      ["fold", Self.path("08-grace-period.json"), "--as-of", "2026-02-20T00:00:00Z", "--json"])
    let subscription = try #require(
      (try jsonObject(later.standardOutput)["subscriptions"] as? [[String: Any]])?.first)
    #expect(subscription["status"] as? Int == 3)
    let inMilliseconds = try CommandLineRunner.run(
      ["fold", Self.path("08-grace-period.json"), "--as-of", "1767312000000", "--json"])
    let early = try #require(
      (try jsonObject(inMilliseconds.standardOutput)["subscriptions"] as? [[String: Any]])?.first)
    #expect(early["status"] as? Int == 1)
  }

  @Test func tablesAndExplanationsForPeople() throws {
    let result = try CommandLineRunner.run(
      ["fold", Self.path("21-refund-current-period.json"), "--explain"])
    #expect(result.status == 0)
    #expect(result.standardOutput.contains("5 revoked"))
    #expect(result.standardOutput.contains("rule S1"))
    #expect(result.standardOutput.contains("REFUND, signed 2026-01-13T00:00:00Z"))
  }

  @Test func malformedScenarioNamesTheEventAndFieldAndExitsOne() throws {
    let scenario = """
      {"name": "bad", "asOf": 0, "events": [
        {"transaction": {"transactionId": "1"}},
        {"notification": {"notificationType": "REFUND", "signedDate": "yesterday"}}]}
      """
    let result = try CommandLineRunner.run(["fold", "-"], standardInput: scenario)
    #expect(result.status == 1)
    #expect(
      result.standardError
        == "error: invalid_scenario: events[1].notification.signedDate: expected a number\n")
    #expect(result.standardOutput.isEmpty)
  }

  @Test func checkReportsDifferencesFromExpect() throws {
    let scenario = """
      {"name": "c", "asOf": 1767312000000, "events": [
        {"transaction": {"transactionId": "9", "productId": "p", "type": "Non-Consumable",
                         "purchaseDate": 1767225600000, "signedDate": 1767225600000}}],
       "expect": {"purchases": [{"transactionId": "9", "entitled": false}]}}
      """
    let result = try CommandLineRunner.run(["fold", "-", "--check"], standardInput: scenario)
    #expect(result.status == 1)
    #expect(result.standardError.contains("purchases[0].entitled: true, expected false"))
    let good = try CommandLineRunner.run(
      ["fold", Self.path("24-consumables-purchase-refund-debit.json"), "--check"])
    #expect(good.status == 0)
  }

  @Test func badAsOfIsAUsageError() throws {
    let result = try CommandLineRunner.run(
      ["fold", Self.path("08-grace-period.json"), "--as-of", "next tuesday"])
    #expect(result.status == 2)
    #expect(result.standardError.contains("--as-of"))
  }
}
