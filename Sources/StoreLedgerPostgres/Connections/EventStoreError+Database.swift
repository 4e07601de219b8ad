import PostgresNIO
import StoreLedgerCore

extension EventStoreError {
  /// Maps an error from PostgresNIO, keeping its SQLSTATE but not its text (which can quote
  /// row values).
  static func database(_ error: any Error, while action: String) -> EventStoreError {
    if let error = error as? EventStoreError { return error }
    guard let psql = error as? PSQLError, let sqlState = psql.serverInfo?[.sqlState]
    else {
      return EventStoreError(.databaseUnavailable, "the database failed while \(action)")
    }
    if let known = known(sqlState, detail: psql.serverInfo?[.detail]) { return known }
    let code: Code =
      sqlState.hasPrefix("22") || sqlState.hasPrefix("23") ? .invalidEvent : .databaseRejected
    let unavailable = sqlState.hasPrefix("08") || sqlState.hasPrefix("57") || sqlState == "40001"
    return EventStoreError(
      unavailable ? .databaseUnavailable : code, "the database refused \(action)",
      sqlState: sqlState)
  }
}

extension EventStoreError {
  /// The errors `storeledger.append_events` raises on purpose.
  fileprivate static func known(_ sqlState: String, detail: String?) -> EventStoreError? {
    switch sqlState {
    case "SL002":
      EventStoreError(
        .idempotencyKeyInOtherStream, "an idempotency key is already used in another stream",
        sqlState: sqlState)
    case "SL003":
      EventStoreError(
        .wrongExpectedVersion,
        "the stream is at version \(detail ?? "?"), not at the expected one", sqlState: sqlState)
    default: nil
    }
  }
}
