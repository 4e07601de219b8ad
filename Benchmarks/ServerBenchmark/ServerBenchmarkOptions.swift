import StoreLedgerPostgres

struct ServerBenchmarkOptions {
  var databaseURL: DatabaseURL?
  /// A streaming replica's server: when given, the webhook with and without it is compared.
  var readDatabaseURL: DatabaseURL?
  /// A failover formation's URL naming every node: when given, only the webhook with that URL
  /// and with the primary's own address is compared.
  var formationURL: DatabaseURL?
  var notifications = 10_000
  var accounts = 100_000
  var clients = 32
  var seconds = 10
  var port = 18_473
  /// Whether the webhook's transactions carry an appTransactionId (Apple's do since 2025).
  var appTransactionIds = true

  struct UsageError: Error, CustomStringConvertible {
    let description: String
  }

  static func parse(_ arguments: ArraySlice<String>) throws -> ServerBenchmarkOptions {
    var options = ServerBenchmarkOptions()
    var iterator = arguments.makeIterator()
    while let argument = iterator.next() {
      let value = iterator.next() ?? ""
      switch argument {
      case "--database-url": options.databaseURL = try DatabaseURL(value)
      case "--read-database-url": options.readDatabaseURL = try DatabaseURL(value)
      case "--formation-url": options.formationURL = try DatabaseURL(value)
      case "--notifications": options.notifications = Int(value) ?? options.notifications
      case "--accounts": options.accounts = Int(value) ?? options.accounts
      case "--clients": options.clients = Int(value) ?? options.clients
      case "--seconds": options.seconds = Int(value) ?? options.seconds
      case "--port": options.port = Int(value) ?? options.port
      case "--app-transaction-ids": options.appTransactionIds = value != "off"
      default: throw UsageError(description: "unknown argument \(argument)")
      }
    }
    guard options.databaseURL != nil || options.formationURL != nil else {
      throw UsageError(description: "--database-url is required")
    }
    return options
  }
}
