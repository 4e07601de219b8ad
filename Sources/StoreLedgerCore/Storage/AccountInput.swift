/// What the projector reads for one account: the appends that named it (`changes`), its
/// events (and its refund requests' events) with their places in the feed, how far its changes are derived, and the snapshot's
/// fence (the oldest transaction still running when it was read).
public struct AccountInput: Sendable {
  package var changes: Int64
  package var steps: [AccountStep] = []
  /// Where each step of ``steps`` sits, same order.
  package var places: [Place] = []

  /// The account's ledger events, to fold.
  package var events: [LedgerEvent] { steps.compactMap(\.ledgerEvent) }
  package var derivation: ChangeDerivationMarker
  package var fence: UInt64

  package init(changes: Int64, derivation: ChangeDerivationMarker, fence: UInt64) {
    self.changes = changes
    self.derivation = derivation
    self.fence = fence
  }

  /// An event's place in the feed, and when its stream joined the account.
  package struct Place: Sendable, Hashable {
    package var transaction: UInt64
    package var sequence: Int64
    /// The transaction that joined the event's stream to the account; nil for joins from
    /// before the change feed existed (they count as from the start).
    package var joined: UInt64?
    package var recordedAt: Timestamp
    package var joinedAt: Timestamp

    package init(
      transaction: UInt64, sequence: Int64, joined: UInt64?, recordedAt: Timestamp,
      joinedAt: Timestamp
    ) {
      self.transaction = transaction
      self.sequence = sequence
      self.joined = joined
      self.recordedAt = recordedAt
      self.joinedAt = joinedAt
    }

    /// An event older than its stream's join is taken at the join: the account learned of it
    /// then.
    package var derivationTransaction: UInt64 { max(transaction, joined ?? 0) }

    package var instant: Timestamp {
      derivationTransaction > transaction ? max(recordedAt, joinedAt) : recordedAt
    }

    /// Derivation order: by the transaction that brought the event to the account, then its
    /// place in the feed. It only ever grows at its end: later transactions come later.
    package static func precedes(_ a: Place, _ b: Place) -> Bool {
      (a.derivationTransaction, a.transaction, a.sequence)
        < (b.derivationTransaction, b.transaction, b.sequence)
    }
  }

  /// The events in derivation order, each with its instant, and whether the snapshot's fence
  /// lets it be derived yet (a transaction at or above the fence may still be followed by an
  /// older one that has not committed).
  package var derivationSteps: [(step: AccountStep, instant: Timestamp, settled: Bool)] {
    places.indices.sorted { Place.precedes(places[$0], places[$1]) }.map {
      (steps[$0], places[$0].instant, places[$0].derivationTransaction < fence)
    }
  }
}
