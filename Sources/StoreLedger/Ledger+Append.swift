import AppStoreVerification
import Foundation
import PostgresNIO
import StoreLedgerCore
import StoreLedgerPostgres

extension Ledger {
  /// Appends `record` and, in the same transaction, indexes its stream (and `alsoIndexing`)
  /// under `accounts`, then runs `check`, which may still refuse the whole append.
  func append(
    _ record: LedgerRecord, accounts: [String], alsoIndexing extra: [String] = [],
    check: (@Sendable (PostgresConnection, AppendResult) async throws -> Void)? = nil
  ) async throws(LedgerError) -> Ingested {
    let tokens = Array(Set(accounts.filter { !$0.isEmpty })).sorted()
    let streams = Array(Set([record.streamId] + extra)).sorted()
    let (store, committer) = (self.store, self.committer)
    do {
      let index = StreamIndex(keys: tokens, streams: streams)
      let result = try await withDatabase {
        guard let check else {
          let item = BatchAppend(event: record.event, streamId: record.streamId, index: index)
          if let committer { return try await committer.append(item) }
          return try await store.append([record.event], to: record.streamId, indexing: index)
        }
        return try await store.append([record.event], to: record.streamId, indexing: index) {
          connection, result in try await check(connection, result)
        }
      }
      let stored = result.events[0]
      return Ingested(
        streamId: record.streamId, idempotencyKey: stored.idempotencyKey,
        streamVersion: stored.streamVersion, wasDuplicate: result.wasDuplicate)
    } catch {
      throw Self.mapped(error)
    }
  }

  /// The purchase streams of a chain, in every environment it was seen in.
  func streams(ofChain originalTransactionId: String) -> [String] {
    configuration.environments.map { "sub:\($0.rawValue):\(originalTransactionId)" }
  }

  /// Verifies with each configured environment's verifier (judging certificates at the
  /// current time when `online`, else at the payload's signedDate); the first that accepts
  /// wins.
  func verify<Result>(
    online: Bool = false, _ body: (SignedDataVerifier) throws(VerificationError) -> Result
  ) throws(LedgerError) -> Result {
    var last: VerificationError?
    for verifier in online ? onlineVerifiers : verifiers {
      do {
        return try body(verifier)
      } catch  where error.code == .environmentMismatch {
        last = error
      } catch {
        throw LedgerError(
          .verificationFailed, error.message, verificationCode: error.code.rawValue)
      }
    }
    throw LedgerError(
      .verificationFailed, last?.message ?? "no environment is configured",
      verificationCode: last?.code.rawValue)
  }

  /// Refuses signed data of another kind before verifying it (the kind is read from the
  /// unverified payload only to refuse, never to trust).
  static func expect(_ kind: SignedDataKind, in jws: String) throws(LedgerError) {
    let found: SignedDataKind
    do {
      found = try SignedDataKind.of(jws)
    } catch {
      throw LedgerError(.verificationFailed, error.message, verificationCode: error.code.rawValue)
    }
    guard found == kind else {
      throw LedgerError(
        .invalidPayload, "this is signed \(found.rawValue) data, not a \(kind.rawValue)")
    }
  }

  func mapped(_ body: () throws -> LedgerRecord) throws(LedgerError) -> LedgerRecord {
    do {
      return try body()
    } catch let error as LedgerRecord.MappingError {
      throw LedgerError(.invalidPayload, error.description)
    } catch {
      throw LedgerError(.invalidPayload, "the payload cannot become an event")
    }
  }

  /// `body` under the configured database timeout.
  func withDatabase<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result)
    async throws -> Result
  {
    try await withTimeout(configuration.databaseTimeout, body)
  }

  static func mapped(_ error: any Error) -> LedgerError {
    if let error = error as? LedgerError { return error }
    if error is TimeoutError {
      return LedgerError(.databaseUnavailable, "the database did not answer in time")
    }
    if let error = error as? EventStoreError {
      if error.code == .hookFailed, let inner = error.underlying as? LedgerError { return inner }
      if error.code == .databaseUnavailable || error.code == .hookFailed {
        return LedgerError(.databaseUnavailable, error.message)
      }
      return LedgerError(.databaseRejected, error.message)
    }
    return LedgerError(.databaseUnavailable, "the database failed")
  }
}
