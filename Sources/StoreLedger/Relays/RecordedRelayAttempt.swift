import Foundation
import StoreLedgerCore

/// A relay attempt as the log holds it: the record, and where and when it was recorded.
public struct RecordedRelayAttempt: Sendable, Hashable, Encodable {
  public let attempt: RelayAttempt
  /// Its version in the stream `relay:<target>` (a page of older attempts starts below it).
  public let streamVersion: Int64
  public let recordedAt: Date

  init?(_ event: RecordedEvent) {
    struct Payload: Decodable { let relayAttempt: RelayAttempt }
    guard let payload = try? JSONDecoder().decode(Payload.self, from: Data(event.payload)) else {
      return nil
    }
    self.attempt = payload.relayAttempt
    self.streamVersion = event.streamVersion
    self.recordedAt = event.recordedAt
  }
}
