import AppStoreVerification
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerMemory
import StoreLedgerPostgres
import StoreLedgerServer
import StoreLedgerTestSupport

/// A live server on loopback over a fresh test database, and what the tests send it.
enum ServerHarness {
  static let pki = try! TestPKI()
  static let signed = SignedFixtures(pki: pki)
  static let apiKey = "sk-test-0123456789"
  /// The servers' logger: quiet but for what stops a test.
  static let logger: Logger = {
    var logger = Logger(label: "test.server")
    logger.logLevel = .critical
    return logger
  }()
  static let catalog = ProductCatalog(products: [
    "pro.monthly": .init(entitlements: ["pro"]),
    "gems.100": .init(entitlements: ["gems"], units: 100),
  ])

  static func configuration(
    _ database: TestDatabase, databaseTimeout: Duration = .seconds(10), bodyLimit: Int = 64 * 1024
  ) -> ServerConfiguration {
    ServerConfiguration(
      database: database.writerURL,
      ledger: LedgerConfiguration(
        bundleId: SignedFixtures.bundleId, environments: [.sandbox],
        trustedRoots: pki.trustedRoots, catalog: catalog, databaseTimeout: databaseTimeout),
      apiKeys: [apiKey], bodyLimit: bodyLimit)
  }

  /// Runs `body` against a live server (AsyncHTTPClient over loopback) on a new database.
  static func withServer(
    databaseTimeout: Duration = .seconds(10), on server: DatabaseURL? = TestDatabase.serverURL,
    _ body: @Sendable (any TestClientProtocol, TestDatabase) async throws -> Void
  ) async throws {
    try await TestDatabase.withMigrated(on: server) { database in
      let application = try buildApplication(
        configuration: configuration(database, databaseTimeout: databaseTimeout),
        logger: ServerHarness.logger)
      try await application.test(.ahc(.http)) { client in try await body(client, database) }
    }
  }

  /// Runs `body` against the server's router in this process, over a ledger on the in-memory
  /// storage: for tests of the HTTP contract whose point is not the database.
  static func withInProcessServer(
    _ body: @Sendable (any TestClientProtocol, InMemoryLedgerStorage) async throws -> Void
  ) async throws {
    let (ledger, memory, configuration) = try inMemory()
    let application = buildApplication(
      serving: ledger, configuration: configuration, logger: logger)
    try await application.test(.router) { client in try await body(client, memory) }
  }

  /// A ledger on the in-memory storage, configured as the servers of these tests are, and a
  /// server configuration naming it (its database is never connected to).
  static func inMemory() throws -> (Ledger, InMemoryLedgerStorage, ServerConfiguration) {
    let memory = InMemoryLedgerStorage()
    let configuration = ServerConfiguration(
      database: try DatabaseURL("postgres://none@in-process.invalid/none"),
      ledger: LedgerConfiguration(
        bundleId: SignedFixtures.bundleId, environments: [.sandbox],
        trustedRoots: pki.trustedRoots, catalog: catalog),
      apiKeys: [apiKey], bodyLimit: 64 * 1024)
    let ledger = try Ledger(
      storage: LedgerStorage(memory, logger: logger, timeout: .seconds(10)),
      configuration: configuration.apps[0].ledger)
    return (ledger, memory, configuration)
  }

  static let authorized: HTTPFields = [.authorization: "Bearer \(apiKey)"]

  static func json(_ object: [String: Any]) -> ByteBuffer {
    ByteBuffer(bytes: try! JSONSerialization.data(withJSONObject: object))
  }

  static func webhookBody(_ signedPayload: String) -> ByteBuffer {
    json(["signedPayload": signedPayload])
  }

  /// The body as a JSON value, for comparisons.
  static func value(_ response: TestResponse) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: Data(response.body.readableBytesView))
  }

  static func errorCode(_ response: TestResponse) throws -> String? {
    guard case .object(let body) = try value(response), case .object(let error)? = body["error"],
      case .string(let code)? = error["code"]
    else { return nil }
    return code
  }

  /// How many events the log holds.
  static func eventCount(_ database: TestDatabase) async throws -> Int {
    try await database.eventCount()
  }

  static func eventCount(_ memory: InMemoryLedgerStorage) async throws -> Int {
    memory.eventCount
  }
}

extension JSONValue {
  subscript(key: String) -> JSONValue? {
    guard case .object(let object) = self else { return nil }
    return object[key]
  }

  var array: [JSONValue]? {
    guard case .array(let array) = self else { return nil }
    return array
  }

  var string: String? {
    guard case .string(let string) = self else { return nil }
    return string
  }

  var number: Double? {
    guard case .number(let number) = self else { return nil }
    return number
  }
}
