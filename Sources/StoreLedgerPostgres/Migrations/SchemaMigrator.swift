import Logging
import PostgresNIO
import StoreLedgerCore

/// Applies `schema/` migrations: each once, in order, in one transaction under an advisory
/// lock, recorded in `public.storeledger_schema_migrations`. Running it again is a no-op;
/// several processes may run it at once.
///
/// Run it as a role that may create roles and schemas (a superuser or the database owner with
/// CREATEROLE); the engine itself then connects as `storeledger_writer`.
public struct SchemaMigrator: Sendable {
  public struct Report: Sendable, Hashable {
    public var applied: [Int]
    public var alreadyApplied: [Int]
  }

  /// An arbitrary constant shared by every migrator: the advisory lock's key.
  static let lockKey: Int64 = 0x5354_4F52_454C_4544

  let client: PostgresClient
  let logger: Logger
  let migrations: [SchemaMigration]

  public init(
    client: PostgresClient, logger: Logger, migrations: [SchemaMigration] = SchemaMigration.all
  ) {
    self.client = client
    self.logger = logger
    self.migrations = migrations.sorted { $0.version < $1.version }
  }

  /// Migrates the database at `url` on a connection pool of its own that runs for exactly as
  /// long (a server's own pool, running as a Service, uses ``migrate()``).
  public static func migrate(_ url: DatabaseURL, logger: Logger) async throws -> Report {
    try await PostgresClient.withRunningClient(url, logger: logger) { client in
      try await SchemaMigrator(client: client, logger: logger).migrate()
    }
  }

  public func migrate() async throws(EventStoreError) -> Report {
    do {
      return try await client.inTransaction(logger: logger) { connection in
        try await connection.execute(
          "SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
        try await connection.execute(
          """
          CREATE TABLE IF NOT EXISTS public.storeledger_schema_migrations (
            version integer PRIMARY KEY, name text NOT NULL, checksum text NOT NULL,
            applied_at timestamptz NOT NULL DEFAULT now())
          """, logger: logger)
        let applied = try await appliedChecksums(connection)
        var report = Report(applied: [], alreadyApplied: [])
        for migration in migrations {
          if let checksum = applied[migration.version] {
            guard checksum == migration.checksum else {
              throw EventStoreError(
                .migrationChanged,
                "migration \(migration.version) was applied with different SQL; add a new migration instead"
              )
            }
            report.alreadyApplied.append(migration.version)
            continue
          }
          try await apply(migration, on: connection)
          report.applied.append(migration.version)
        }
        return report
      }
    } catch {
      throw EventStoreError.database(error, while: "migrating the schema")
    }
  }

  private func appliedChecksums(_ connection: PostgresConnection) async throws -> [Int: String] {
    try await connection.query(
      "SELECT version, checksum FROM public.storeledger_schema_migrations", logger: logger
    ) { rows in
      var checksums: [Int: String] = [:]
      for try await (version, checksum) in rows.decode((Int, String).self) {
        checksums[version] = checksum
      }
      return checksums
    }
  }

  private func apply(_ migration: SchemaMigration, on connection: PostgresConnection) async throws {
    logger.info(
      "applying migration",
      metadata: ["version": "\(migration.version)", "name": "\(migration.name)"])
    for statement in SQLScript.statements(migration.sql) {
      try await connection.execute(PostgresQuery(unsafeSQL: statement), logger: logger)
    }
    try await connection.execute(
      """
      INSERT INTO public.storeledger_schema_migrations (version, name, checksum)
      VALUES (\(migration.version), \(migration.name), \(migration.checksum))
      """, logger: logger)
  }
}
