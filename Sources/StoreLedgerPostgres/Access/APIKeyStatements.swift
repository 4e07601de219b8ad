import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The statements over `storeledger.api_keys` (schema/0022).
enum APIKeyStatements {
  static func create(_ key: APIKeyRecord, on client: PostgresClient, logger: Logger)
    async throws -> Bool
  {
    let scopes = key.scopes.sorted().map(\.rawValue)
    return try await client.query(
      """
      INSERT INTO storeledger.api_keys (key_id, name, scopes, secret_sha256, created_at)
      VALUES (\(key.id), \(key.name), \(scopes), \(ByteBuffer(bytes: key.secretHash)),
        \(key.createdAt))
      ON CONFLICT (name) WHERE revoked_at IS NULL DO NOTHING
      RETURNING key_id
      """, logger: logger
    ) { rows in
      var stored = false
      for try await _ in rows { stored = true }
      return stored
    }
  }

  static func key(id: String, on client: PostgresClient, logger: Logger) async throws
    -> APIKeyRecord?
  {
    try await client.query(
      """
      SELECT key_id, name, scopes, secret_sha256, created_at, revoked_at
      FROM storeledger.api_keys WHERE key_id = \(id)
      """, logger: logger, reading: records
    ).first
  }

  static func all(on client: PostgresClient, logger: Logger) async throws -> [APIKeyRecord] {
    try await client.query(
      """
      SELECT key_id, name, scopes, secret_sha256, created_at, revoked_at
      FROM storeledger.api_keys ORDER BY created_at, key_id
      """, logger: logger, reading: records)
  }

  static func revoke(named name: String, at time: Date, on client: PostgresClient, logger: Logger)
    async throws -> Bool
  {
    try await client.query(
      """
      UPDATE storeledger.api_keys SET revoked_at = \(time)
      WHERE name = \(name) AND revoked_at IS NULL RETURNING key_id
      """, logger: logger
    ) { rows in
      var revoked = false
      for try await _ in rows { revoked = true }
      return revoked
    }
  }

  private static func records(_ rows: StatementRows) async throws -> [APIKeyRecord] {
    var records: [APIKeyRecord] = []
    for try await (id, name, scopes, hash, created, revoked) in rows.decode(
      (String, String, [String], ByteBuffer, Date, Date?).self)
    {
      records.append(
        APIKeyRecord(
          id: id, name: name, scopes: Set(scopes.compactMap(APIKeyScope.init(rawValue:))),
          secretHash: Array(buffer: hash), createdAt: created, revokedAt: revoked))
    }
    return records
  }
}
