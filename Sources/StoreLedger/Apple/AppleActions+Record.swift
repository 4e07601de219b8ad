import Foundation
import StoreLedgerCore

/// What StoreLedger did at Apple, recorded in the log: one event of `eventType` in `stream`
/// whose payload is `{member: body}`, keyed by `key` (a random suffix when the action may be
/// repeated). These streams are not indexed under accounts: they never change an answer.
extension AppleActions {
  func recordAction(
    _ eventType: String, member: String, body: some Encodable, stream: String,
    key: String? = nil
  ) async throws(LedgerError) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let payload: [UInt8]
    do {
      payload = Array(try encoder.encode([member: body]))
    } catch {
      throw LedgerError(.invalidRequest, "the action cannot be recorded")
    }
    let event = EventCodec.newRecord(
      payload, type: eventType, key: key ?? "\(stream):\(UUID().uuidString.lowercased())",
      source: "api")
    let log = self.log
    _ = try await calls.run { try await log.append([event], to: stream, indexing: nil) }
  }
}
