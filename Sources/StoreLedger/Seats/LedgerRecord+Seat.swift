import StoreLedgerCore

extension LedgerRecord {
  /// A seat claim event, kept in the subscription's seat stream under a key that makes each
  /// step of a claim happen once: `seat:<requestIdentifier>:<action>` (an association also
  /// names the download).
  public static func seat(_ event: SeatClaimEvent, environment: String, source: String) throws
    -> LedgerRecord
  {
    guard !event.originalTransactionId.isEmpty, !event.requestIdentifier.isEmpty else {
      throw MappingError(description: "a seat claim needs its subscription and request")
    }
    var key = "seat:\(event.requestIdentifier):\(event.action.rawValue)"
    if event.action == .associated { key += ":\(event.appTransactionId ?? "")" }
    return LedgerRecord(
      streamId: seatsStream(environment, event.originalTransactionId),
      event: EventCodec.newEvent(
        .seat(event), key: key, source: source, environment: environment,
        appleSignedAt: event.occurredAt.date))
  }
}
