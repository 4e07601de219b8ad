import StoreLedgerCore
import StoreLedgerPostgres

/// Tells this process's reads that accounts were written: the replicas, so a read after the
/// write waits for them or goes to the primary, and the view cache, so no view from before the
/// write answers again.
package struct WrittenAccounts: Sendable {
  let replicas: ReadReplicas?
  let viewCache: AccountViewCache?

  /// A write to `tokens` committed. The replicas note it before the cache lets go of the old
  /// views, so no read that begins after this can be answered from before the write.
  func changed(_ tokens: [String]) {
    replicas?.noteWrite(to: tokens)
    viewCache?.invalidate(tokens)
  }
}
