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
}
