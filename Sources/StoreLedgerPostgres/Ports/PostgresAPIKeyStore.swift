import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// Named API keys live in `storeledger.api_keys` (schema/0022), on the primary: a revoked key
/// must stop working at once, never be read from a replica that lags.
public struct PostgresAPIKeyStore: APIKeyStore {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func createKey(_ key: APIKeyRecord) async throws(EventStoreError) -> Bool {
    try await database.primary("storing an API key") { client, logger in
      try await APIKeyStatements.create(key, on: client, logger: logger)
    }
  }

  public func key(id: String) async throws(EventStoreError) -> APIKeyRecord? {
    try await database.primary("reading an API key") { client, logger in
      try await APIKeyStatements.key(id: id, on: client, logger: logger)
    }
  }

  public func keys() async throws(EventStoreError) -> [APIKeyRecord] {
    try await database.primary("listing API keys") { client, logger in
      try await APIKeyStatements.all(on: client, logger: logger)
    }
  }

  public func revokeKey(named name: String, at time: Date) async throws(EventStoreError) -> Bool {
    try await database.primary("revoking an API key") { client, logger in
      try await APIKeyStatements.revoke(named: name, at: time, on: client, logger: logger)
    }
  }
}
