import AppStoreSimulator
import StoreLedgerCore

/// The demo's product catalog: what each simulated product entitles to.
enum DemoCatalog {
  static let catalog = ProductCatalog(products: [
    "pro.premium.monthly": .init(entitlements: ["premium", "pro"]),
    "pro.monthly": .init(entitlements: ["pro"]),
    "pro.plus.monthly": .init(entitlements: ["pro"]),
    "pro.basic.monthly": .init(entitlements: ["basic"]),
    SimulatedProducts.consumable: .init(entitlements: ["gems"], units: 100),
    SimulatedProducts.nonConsumable: .init(entitlements: ["lifetime"]),
    SimulatedProducts.nonRenewing: .init(entitlements: ["pass"], durationDays: 30),
  ])
}
