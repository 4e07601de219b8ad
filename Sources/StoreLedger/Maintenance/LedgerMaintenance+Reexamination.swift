import AppStoreVerification
import Foundation
import Logging
import StoreLedgerCore

extension LedgerMaintenance {
  /// What re-examining the unrouted evidence did.
  public struct Reexamination: Sendable, Hashable, Codable {
    /// Unrouted notifications looked at (those not routed before).
    public var examined: Int = 0
    /// Now routed to this app, in the stream their app and purchase name.
    public var routed: Int = 0
    /// Still naming no app this release can read.
    public var stillUnrouted: Int = 0
    /// Their app can be read now and is not this one (or they no longer verify): kept as
    /// evidence, nothing else stored.
    public var refused: Int = 0

    public init(examined: Int = 0, routed: Int = 0, stillUnrouted: Int = 0, refused: Int = 0) {
      self.examined = examined
      self.routed = routed
      self.stillUnrouted = stillUnrouted
      self.refused = refused
    }
  }

  /// Reads every unrouted notification again with this release's decoder and routes those
  /// whose app it can now read (verifying them again as any notification). Idempotent.
  public func reexamineUnrouted() async throws(LedgerError) -> Reexamination {
    let maintenance = maintenance
    let payloads = try await calls.run { try await maintenance.unroutedPayloads() }
    var result = Reexamination()
    for payload in payloads {
      result.examined += 1
      do {
        let ingested = try await ingestion.ingest(notification: payload, source: "reexamined")
        if ingested.unrouted { result.stillUnrouted += 1 } else { result.routed += 1 }
      } catch  where error.code == .verificationFailed || error.code == .invalidPayload {
        result.refused += 1
      }
    }
    if result.routed > 0 {
      logger.info(
        "routed unrouted notifications", metadata: ["routed": "\(result.routed)"])
    }
    return result
  }
}
