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
    // Unavailable: retrying later can succeed and nothing was changed. A lost connection
    // (08), a server shutting down or a cancelled statement (57), a transaction rolled back
    // for serialization or a deadlock (40001, 40P01), and a write refused as read-only
    // (25006): the host was a primary being demoted, and the new primary takes it.
    let unavailable =
      sqlState.hasPrefix("08") || sqlState.hasPrefix("57") || sqlState == "40001"
      || sqlState == "40P01" || sqlState == "25006"
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
    case "SL020": .unknownAccountToErase(sqlState: sqlState)
    case "SL021": shared(detail, sqlState: sqlState)
    case "SL022": .incompleteErasure(sqlState: sqlState)
    default: nil
    }
  }

  /// SL021's detail is "<purchases> <accounts>".
  private static func shared(_ detail: String?, sqlState: String) -> EventStoreError {
    let counts: [String] = (detail ?? "").split(separator: " ").map(String.init)
    return EventStoreError.sharedAccountData(
      streams: counts.first ?? "some", accounts: counts.count > 1 ? counts[1] : "other",
      sqlState: sqlState)
  }
}
