import AppStoreVerification
import StoreLedgerCore

/// What a ``Ledger`` accepts and how it answers.
public struct LedgerConfiguration: Sendable {
  public var bundleId: String
  /// Required to accept Production data.
  public var appAppleId: Int64?
  /// Apple sends Production and Sandbox notifications side by side; a verifier for each.
  public var environments: [AppStoreEnvironment]
  public var trustedRoots: TrustedRoots
  public var catalog: ProductCatalog
  public var options: ProjectionOptions
  /// How long an operation waits for the database before it gives up with
  /// `database_unavailable` (PostgresNIO itself keeps retrying a server that is down).
  public var databaseTimeout: Duration
  /// Ingests that arrive while others are being committed share their next commit (one
  /// transaction, one WAL flush); each is still answered only after it is durable.
  public var groupCommit: Bool
  /// The most ingests one shared commit takes.
  public var maximumCommitBatch: Int
  /// How many accounts' current views this process keeps in memory to answer queries without
  /// a round trip, while an ``AccountProjector`` runs in it (see AccountViewCache); 0: none.
  public var viewCacheCapacity: Int
  /// The app's name in a deployment of several apps (an apps file): the changes it reads
  /// carry it. Nil for one app configured by flags.
  public var app: String?

  public init(
    bundleId: String, appAppleId: Int64? = nil,
    environments: [AppStoreEnvironment] = [.production, .sandbox],
    trustedRoots: TrustedRoots = .apple, catalog: ProductCatalog = .empty,
    options: ProjectionOptions = .init(), databaseTimeout: Duration = .seconds(10),
    groupCommit: Bool = true, maximumCommitBatch: Int = 64, viewCacheCapacity: Int = 200_000,
    app: String? = nil
  ) {
    self.app = app
    self.bundleId = bundleId
    self.appAppleId = appAppleId
    self.environments = environments
    self.trustedRoots = trustedRoots
    self.catalog = catalog
    self.options = options
    self.databaseTimeout = databaseTimeout
    self.groupCommit = groupCommit
    self.maximumCommitBatch = maximumCommitBatch
    self.viewCacheCapacity = viewCacheCapacity
  }
}

extension LedgerConfiguration {
  /// The purchase streams of a chain, in every configured environment.
  func purchaseStreams(ofChain originalTransactionId: String) -> [String] {
    environments.map { "sub:\($0.rawValue):\(originalTransactionId)" }
  }
}
