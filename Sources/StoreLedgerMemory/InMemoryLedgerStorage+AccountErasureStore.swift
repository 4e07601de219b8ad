import Crypto
import Foundation
import StoreLedgerCore
import Synchronization

/// Erasure in memory, with the promises of `storeledger.erase_accounts`: the accounts' rows,
/// and rows of other streams that name them, become tombstones in place (hashes, positions and
/// versions kept; a stream erased whole renamed `erased:<uuid>`), every derived row goes, the
/// erased tokens and identifiers are remembered only as keyed hashes, and the erasure appends
/// its own event. All under the one lock, so an append waits for it.
extension InMemoryLedgerStorage: AccountErasureStore {
  public func erase(_ request: ErasureRequest) async throws(EventStoreError) -> ErasureReceipt {
    let now = now()
    return try state.withLock { state throws(EventStoreError) in
      let tokens = Set(request.appAccountTokens.map { $0.lowercased() }).sorted()
      guard !tokens.isEmpty, !tokens.contains(""), !request.reason.isBlank,
        !request.requestedBy.isBlank
      else { throw .incompleteErasure() }
      let known = tokens.filter { Self.holdsData(of: $0, in: state) }
      if tokens.contains(where: {
        !known.contains($0) && state.erased[state.keyedHash(.account, $0)] == nil
      }) {
        throw .unknownAccountToErase()
      }
      guard !known.isEmpty else {
        return ErasureReceipt(
          outcome: .alreadyErased,
          erasureId: state.erased[state.keyedHash(.account, tokens[0])]?.erasureId
            ?? request.erasureId, erasedRows: 0, erasedStreams: 0, rowsDigest: nil, erasedAt: nil)
      }
      let plan = try ErasurePlan(tokens: tokens, in: state)
      let event = ErasureEvent(
        erasureId: request.erasureId, requestedBy: request.requestedBy, reason: request.reason,
        later: request.later, accounts: Int64(tokens.count), rows: Int64(plan.rows.count),
        streams: Int64(plan.streamCount), rowsDigest: plan.digest, erasedAt: now)
      let payload: Data
      do {
        payload = try JSONEncoder().encode(event)
      } catch {
        throw EventStoreError(.invalidEvent, "the erasure's event does not encode as JSON")
      }
      plan.tombstone(request.erasureId, in: &state)
      plan.dropDerived(in: &state)
      for id in plan.identifiers {
        state.erased[state.keyedHash(tokens.contains(id) ? .account : .identifier, id)] =
          ErasedIdentifier(erasureId: request.erasureId, later: request.later)
      }
      _ = Self.write(
        [
          NewEvent(
            eventType: EventTypes.accountErased,
            idempotencyKey: "erasure:\(request.erasureId.uuidString.lowercased())",
            payload: Array(payload), metadata: Array(#"{"source":"erasure"}"#.utf8))
        ], to: ErasureEvent.stream, index: nil, at: now, in: &state)
      return ErasureReceipt(
        outcome: .erased, erasureId: request.erasureId, erasedRows: Int64(plan.rows.count),
        erasedStreams: Int64(plan.streamCount), rowsDigest: plan.digest, erasedAt: now)
    }
  }

  public func erasures() async throws(EventStoreError) -> [ErasureRecord] {
    try state.withLock { state throws(EventStoreError) in
      var records: [ErasureRecord] = []
      for event in Self.recorded(of: [ErasureEvent.stream], in: state)
      where event.eventType == EventTypes.accountErased {
        let erasure = try ErasureEvent(payload: event.payload)
        let found = state.events.filter { $0.erasedBy == erasure.erasureId }
        records.append(
          erasure.record(
            foundRows: Int64(found.count), foundDigest: ErasurePlan.digest(of: found)))
      }
      return records
    }
  }

  public func erasure(ofAccount appAccountToken: String) async throws(EventStoreError) -> UUID? {
    state.withLock { state in
      state.erased[state.keyedHash(.account, appAccountToken.lowercased())]?.erasureId
    }
  }

  public func unrecordedErasures() async throws(EventStoreError) -> [UUID: Int64] {
    try state.withLock { state throws(EventStoreError) in
      var recorded: Set<UUID> = []
      for event in Self.recorded(of: [ErasureEvent.stream], in: state)
      where event.eventType == EventTypes.accountErased {
        recorded.insert(try ErasureEvent(payload: event.payload).erasureId)
      }
      var found: [UUID: Int64] = [:]
      for event in state.events {
        if let id = event.erasedBy, !recorded.contains(id) { found[id, default: 0] += 1 }
      }
      return found
    }
  }

  public func quarantinedAccountsIndexed() async throws(EventStoreError) -> Int64 {
    state.withLock { state in
      Int64(
        state.streamsOfAccount.filter { !$0.value.isEmpty && state.isQuarantined($0.key) }.count)
    }
  }

  /// Whether the log holds anything of the account: an indexed stream, a view, a consent.
  static func holdsData(of token: String, in state: State) -> Bool {
    state.streamsOfAccount[token]?.isEmpty == false || state.views[token] != nil
      || state.eventsOfStream["consent:\(token)"] != nil
  }
}

extension InMemoryLedgerStorage {
  /// What an erasure remembers of one erased token or identifier: which erasure, and what
  /// becomes of later data naming it.
  struct ErasedIdentifier {
    var erasureId: UUID
    var later: LaterDataRule
  }

  /// The register's two kinds, as the keyed hash prefixes them.
  enum ErasedKind: String {
    case account, identifier
  }
}

extension InMemoryLedgerStorage.State {
  /// HMAC-SHA256 of `kind:id` under this store's own random key.
  func keyedHash(_ kind: InMemoryLedgerStorage.ErasedKind, _ id: String) -> Data {
    Data(
      HMAC<SHA256>.authenticationCode(for: Data("\(kind.rawValue):\(id)".utf8), using: erasureKey)
    )
  }

  /// Whether an erasure chose to keep later data naming `token` attached to no account.
  func isQuarantined(_ token: String) -> Bool {
    !erased.isEmpty && erased[keyedHash(.account, token)]?.later == .quarantine
  }
}

extension String {
  fileprivate var isBlank: Bool { trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
}
