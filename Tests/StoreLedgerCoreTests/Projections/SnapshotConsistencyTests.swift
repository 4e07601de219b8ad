import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// A snapshot evaluates every chain, purchase and balance once and derives the entitlements
/// from them: what it lists is what each projection says on its own, and every entitlement it
/// lists is what explaining that entitlement answers.
@Suite struct SnapshotConsistencyTests {
  static let catalog = ProductCatalog(products: [
    "pro.monthly": .init(entitlements: ["pro"]),
    "premium.monthly": .init(entitlements: ["pro", "premium"]),
    "gems.100": .init(entitlements: ["gems"], units: 100),
    "lifetime": .init(entitlements: ["lifetime"]),
  ])

  @Test func everyGeneratedSnapshotListsWhatEachProjectionSaysAlone() {
    let events = SyntheticLifecycles.events(customers: 100, seed: 23)
    let view = LedgerView(LedgerState.fold(events), catalog: Self.catalog)
    var (entitlements, active) = (0, 0)
    for milliseconds in stride(
      from: Int64(1_600_000_000_000), through: 1_900_000_000_000, by: 30_000_000_000)
    {
      let time = Timestamp(milliseconds: milliseconds)
      let snapshot = view.snapshot(at: time)
      #expect(snapshot.subscriptions == view.subscriptions(at: time))
      #expect(snapshot.purchases == view.purchases(at: time))
      #expect(snapshot.consumables == view.consumables(at: time))
      #expect(snapshot.revocations == view.revocations(at: time))
      for entitlement in snapshot.entitlements {
        let explained = view.explainEntitlement(
          entitlement.entitlement, for: entitlement.appAccountToken, at: time)
        #expect(explained?.answer == (entitlement.active ? "active" : "inactive"))
        (entitlements, active) = (entitlements + 1, active + (entitlement.active ? 1 : 0))
      }
      let tokens = Set(snapshot.subscriptions.compactMap(\.appAccountToken))
      for token in tokens {
        #expect(
          view.entitlements(for: token, at: time)
            == snapshot.entitlements.filter { $0.appAccountToken == token })
      }
    }
    #expect(entitlements > 500)
    #expect(active > 100 && active < entitlements)
  }
}
