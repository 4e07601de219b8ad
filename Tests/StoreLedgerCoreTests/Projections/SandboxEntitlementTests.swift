import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

/// Whether Sandbox purchases entitle is configuration: by default they do (App Review and
/// TestFlight buy in Sandbox); turned off, a purchase Apple signed in Sandbox grants nothing,
/// one in Production still does, and one whose environment the facts do not hold entitles as
/// before.
struct SandboxEntitlementTests {
  typealias F = LedgerFixtures

  static func entitled(_ environment: AppStoreEnvironment?, sandboxEntitles: Bool) -> Bool? {
    var transaction = F.transaction("1", purchased: 0, expires: 30)
    transaction.environment = environment
    let catalog = ProductCatalog(products: ["pro.monthly": .init(entitlements: ["pro"])])
    let view = LedgerView(
      LedgerState.fold([F.observed(transaction)]), catalog: catalog,
      options: ProjectionOptions(sandboxEntitles: sandboxEntitles))
    let snapshot = view.snapshot(at: F.t(5))
    #expect(snapshot.subscriptions.first?.status == 1)
    #expect(snapshot.entitlements.first?.active == snapshot.subscriptions.first?.entitled)
    return snapshot.subscriptions.first?.entitled
  }

  @Test func sandboxEntitlesUnlessConfiguredOtherwise() {
    #expect(Self.entitled(.sandbox, sandboxEntitles: true) == true)
    #expect(Self.entitled(.sandbox, sandboxEntitles: false) == false)
    #expect(Self.entitled(.production, sandboxEntitles: false) == true)
    #expect(Self.entitled(nil, sandboxEntitles: false) == true)
  }

  /// Every item says where it comes from: an entitlement the environment of the purchase that
  /// decided it, a balance every environment its purchases were signed in.
  @Test func entitlementsAndBalancesSayWhichEnvironmentTheyComeFrom() {
    var subscription = F.transaction("1", purchased: 0, expires: 30)
    subscription.environment = .production
    var sandboxGems = F.transaction(
      "2", product: "gems.100", type: .consumable, purchased: 1, group: nil)
    sandboxGems.environment = .sandbox
    var productionGems = F.transaction(
      "3", product: "gems.100", type: .consumable, purchased: 2, group: nil)
    productionGems.environment = .production
    var oldGems = F.transaction(
      "4", product: "gems.10", type: .consumable, purchased: 2, group: nil)
    oldGems.environment = nil
    let catalog = ProductCatalog(products: [
      "pro.monthly": .init(entitlements: ["pro"]),
      "gems.100": .init(entitlements: ["gems"], units: 100),
      "gems.10": .init(entitlements: ["small"], units: 10),
    ])
    let snapshot = LedgerView(
      LedgerState.fold(
        [subscription, sandboxGems, productionGems, oldGems].map { F.observed($0) }),
      catalog: catalog
    ).snapshot(at: F.t(5))
    let environments = Dictionary(
      uniqueKeysWithValues: snapshot.entitlements.map { ($0.entitlement, $0.environment) })
    #expect(environments == ["pro": "Production", "gems": "Production", "small": nil])
    let balances = Dictionary(
      uniqueKeysWithValues: snapshot.consumables.map { ($0.productId, $0.environments) })
    #expect(balances == ["gems.100": ["Production", "Sandbox"], "gems.10": []])
  }
}
