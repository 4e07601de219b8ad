import StoreLedgerCore

/// An account's state folded from its streams in the log, as the services that decide over it
/// read it (the account API's summaries read through ``Ledger``, which may answer from the
/// stored view).
package struct AccountReader: Sendable {
  let accounts: any AccountReads
  let log: any EventLog
  let calls: StorageCalls
  let catalog: ProductCatalog
  let options: ProjectionOptions

  /// The account's state; of one environment's events only (and the backend's commands,
  /// which have none) when `environment` is given. `token` is canonical.
  func view(
    of token: String, environment: AppStoreEnvironment? = nil,
    consistency: ReadConsistency = .readYourWrites
  ) async throws(LedgerError) -> LedgerView {
    try await read(token, environment: environment, consistency: consistency).value
  }

  /// The same, and the replica that answered (nil: the primary).
  func read(
    _ token: String, environment: AppStoreEnvironment? = nil, consistency: ReadConsistency
  ) async throws(LedgerError) -> ReadAnswer<LedgerView> {
    let answer: ReadAnswer<[LedgerEvent]>
    do {
      answer = try await accounts.events(
        of: token, environment: environment?.rawValue, consistency: consistency)
    } catch {
      throw LedgerStorage.mapped(error)
    }
    let view = LedgerView(LedgerState.fold(answer.value), catalog: catalog, options: options)
    return ReadAnswer(value: view, replica: answer.replica)
  }

  /// The account's history as stored, oldest first in each stream, with the original JWS.
  func recordedEvents(of token: String, consistency: ReadConsistency = .readYourWrites)
    async throws(LedgerError) -> [RecordedEvent]
  {
    do {
      return try await accounts.recordedEvents(of: token, consistency: consistency)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// The state `streams` hold (a purchase chain's, in every environment), read from the
  /// primary's log; without the events an erasure removed when `skippingErased`.
  func view(ofStreams streams: [String], skippingErased: Bool) async throws(LedgerError)
    -> LedgerView
  {
    let log = self.log
    let recorded = try await calls.run { try await log.readStreams(streams) }
    do {
      return LedgerView(
        LedgerState.fold(
          try recorded.filter {
            EventCodec.holdsLedgerEvent($0.eventType) && (!skippingErased || $0.erasedBy == nil)
          }.map(EventCodec.event)),
        catalog: catalog, options: options)
    } catch {
      throw LedgerError(.invalidPayload, "a stored event of the purchase could not be read")
    }
  }
}
