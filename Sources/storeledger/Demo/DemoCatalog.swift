import AppStoreSimulator
import StoreLedgerCore

/// The demo's product catalog: the simulated app's own (what each product entitles to).
enum DemoCatalog {
  static let catalog = SimulatedProducts.catalog
}
