import Foundation
import Logging
import PostgresNIO
import StoreLedgerCore

/// The account queries' reads: on a replica when one may answer (``ReadReplicas``), else on
/// the primary, each within the timeout.
public struct PostgresAccountReads: AccountReads {
  let database: PostgresLedgerDatabase

  public init(_ database: PostgresLedgerDatabase) {
    self.database = database
  }

  public func events(of account: String, environment: String?, consistency: ReadConsistency)
    async throws(EventStoreError) -> ReadAnswer<[LedgerEvent]>
  {
    let logger = database.logger
    return try await database.reading(account, consistency, "reading an account's events") {
      client in
      try await AccountEvents.read(account, environment: environment, on: client, logger: logger)
    }
  }

  public func recordedEvents(of account: String, consistency: ReadConsistency)
    async throws(EventStoreError) -> [RecordedEvent]
  {
    let logger = database.logger
    return try await database.reading(account, consistency, "reading an account's events") {
      client in
      let streams = try await AccountEvents.streams(of: account, on: client, logger: logger)
      return try await EventStore(client: client, logger: logger).readStreams(streams)
    }.value
  }

  public func storedView(
    of account: String, part: AccountViewSlice.Part?, consistency: ReadConsistency
  ) async throws(EventStoreError) -> ReadAnswer<AccountViewSlice?> {
    let logger = database.logger
    return try await database.reading(account, consistency, "reading an account's view") { client in
      if let part {
        return try await AccountViewSlice.read(part, of: account, on: client, logger: logger)
      }
      return try await AccountViewSlice.readWhole(of: account, on: client, logger: logger)
    }
  }
}
