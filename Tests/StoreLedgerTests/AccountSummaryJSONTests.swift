import Foundation
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport
import Testing

/// The read model's JSON text says what AccountSummary's Encodable says, member for member.
@Suite struct AccountSummaryJSONTests {
  static func parsed(_ text: some DataProtocol) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(text))
  }

  @Test func everyGeneratedAccountWritesWhatItsEncodableWrites() throws {
    let events = SyntheticLifecycles.events(customers: 120, seed: 11)
    let catalog = ProductCatalog(products: [
      "pro.monthly": .init(entitlements: ["pro"]),
      "premium.monthly": .init(entitlements: ["pro", "premium"]),
      "gems.100": .init(entitlements: ["gems"], units: 100),
      "lifetime": .init(entitlements: ["lifetime"]),
    ])
    let view = LedgerView(LedgerState.fold(events), catalog: catalog)
    let times = [1_600_000_000_000, 1_750_000_000_000, 1_900_000_000_000].map {
      Timestamp(milliseconds: $0)
    }
    let tokens = Set(
      times.flatMap { time in
        view.subscriptions(at: time).compactMap(\.appAccountToken)
          + view.consumables(at: time).compactMap(\.appAccountToken)
      })
    var (compared, withConsumables, withEntitlements) = (0, 0, 0)
    for token in tokens.sorted() {
      for time in times {
        let summary = AccountSummary(view, for: token, at: time)
        #expect(
          try Self.parsed(Array(summary.jsonText.utf8))
            == Self.parsed(JSONEncoder().encode(summary)))
        #expect(
          try JSONDecoder().decode(AccountSummary.self, from: Data(summary.jsonText.utf8))
            == summary)
        compared += 1
        if !summary.consumables.isEmpty { withConsumables += 1 }
        if !summary.entitlements.isEmpty { withEntitlements += 1 }
      }
    }
    #expect(compared > 100 && withConsumables > 0 && withEntitlements > 0)
  }

  @Test func stringsAndAbsentValuesAreWrittenAsJSON() throws {
    let awkward = "quote \" backslash \\ newline \n tab \t bell \u{07} é 😀 </script>"
    let entitlement = try JSONDecoder().decode(
      EntitlementView.self,
      from: JSONSerialization.data(withJSONObject: [
        "appAccountToken": awkward, "entitlement": "pro", "active": true, "source": "1",
        "rule": awkward,
      ]))
    let summary = AccountSummary(entitlements: [entitlement], subscriptions: [], consumables: [])
    #expect(
      try Self.parsed(Array(summary.jsonText.utf8)) == Self.parsed(JSONEncoder().encode(summary)))
    #expect(summary.jsonText.contains("\"expiresDate\":null"))
  }
}
