import Foundation
import StoreLedgerCore

/// Fetched observations the log already holds: Apple signs every response when it serves it,
/// so without this each replay would store every transaction again.
struct RepeatedObservations: Sendable {
  let log: any EventLog
  let calls: StorageCalls

  /// The stored event that already says what a fetched observation says: the newest snapshot
  /// of the same transaction (or renewal info) in its chain's stream, equal but for
  /// `signedDate`. Nil when the observation tells something new.
  func stored(
    in stream: String,
    _ repeated: @Sendable (NewestObservations) -> Int?
  ) async throws(LedgerError) -> IngestReceipt? {
    let log = self.log
    let recorded: [RecordedEvent]
    do {
      recorded = try await calls.bounded { try await log.readStreams([stream]) }
    } catch {
      throw LedgerStorage.mapped(error)
    }
    let claims: [AppleClaims?]
    do {
      claims = try recorded.map(EventCodec.claims(of:))
    } catch {
      // A stream the log cannot read back is not a reason to refuse new evidence.
      return nil
    }
    guard let index = repeated(NewestObservations(claims)) else { return nil }
    let event = recorded[index]
    return IngestReceipt(
      streamId: stream, idempotencyKey: event.idempotencyKey, streamVersion: event.streamVersion,
      wasDuplicate: true)
  }
}
