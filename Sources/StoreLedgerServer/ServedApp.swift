import Foundation
import PostgresNIO
import StoreLedger
import StoreLedgerPostgres

/// One app a server serves: its own database (accounts and changes are per app, and an
/// `appAccountToken` may name a customer in two apps), its ledger, and what acts for it.
public struct ServedApp: Sendable {
  /// Names the app in `/apps/{name}/…`, in the `app` label of metrics and in its changes.
  public var name: String
  /// The app's PostgreSQL database (as the writer role): one host, or several of which the
  /// one that accepts writes is used (a pg_auto_failover or Patroni formation; see
  /// ``DatabaseHosts``).
  public var database: DatabaseURL
  /// Streaming replicas of `database` that answer account queries, the console and the
  /// change feed's reads (read-your-writes; see ``ReadReplicas``). The webhook, commands and
  /// every write stay on `database`.
  public var readReplicas: [ReplicaDatabase]
  public var replicaSettings: ReadReplicas.Settings
  public var ledger: LedgerConfiguration
  /// App Store Server API credentials: the write side (answers to refund requests) needs
  /// them; without them requests are recorded and listed, never answered.
  public var appStoreAPI: AppStoreAPISettings?
  /// Runs the refund-request worker in this process (with `appStoreAPI`). Several servers
  /// may each run one: a request is claimed by one of them at a time.
  public var consumption: ConsumptionWorkerConfiguration?
  /// Delivers the app's change feed to these webhooks from this process. Several servers may
  /// each deliver: a change is claimed by one of them at a time.
  public var changeDelivery: ChangeDeliveryConfiguration?
  /// Signed checkpoints of the app's log: published in a directory and served.
  public var checkpoints: CheckpointSettings?
  /// How this process relays Apple's notifications to the stored relay targets (nil: it does
  /// not relay; another server may). Several servers may relay: a delivery is claimed by one
  /// of them at a time.
  public var relays: RelayConfiguration? = RelayConfiguration()

  public init(
    name: String, database: DatabaseURL,
    readReplicas: [ReplicaDatabase] = [], replicaSettings: ReadReplicas.Settings = .init(),
    ledger: LedgerConfiguration, appStoreAPI: AppStoreAPISettings? = nil,
    consumption: ConsumptionWorkerConfiguration? = nil,
    changeDelivery: ChangeDeliveryConfiguration? = nil, checkpoints: CheckpointSettings? = nil
  ) {
    self.checkpoints = checkpoints
    self.name = name
    self.database = database
    self.readReplicas = readReplicas
    self.replicaSettings = replicaSettings
    self.ledger = ledger
    self.appStoreAPI = appStoreAPI
    self.consumption = consumption
    self.changeDelivery = changeDelivery
  }

  /// One read replica: its name in logs and metrics (never with credentials) and its URL
  /// (with several hosts, the standby among them answers).
  public struct ReplicaDatabase: Sendable {
    public var name: String
    public var url: DatabaseURL

    public init(name: String, url: DatabaseURL) {
      self.name = name
      self.url = url
    }

    /// The replica at `url`, named by its address.
    public init(_ url: DatabaseURL) {
      self.init(name: url.address, url: url)
    }
  }

  /// Whether `name` can be a path segment and a label value: letters, digits, `.`, `_`, `-`.
  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.count <= 100
      && name.unicodeScalars.allSatisfy {
        ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || "._-".unicodeScalars.contains($0)
      }
  }
}
