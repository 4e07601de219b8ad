import StoreLedgerCore
import StoreLedgerPostgres

/// How a service calls the ports it holds: within the storage's deadline
/// (``LedgerConfiguration/databaseTimeout``), a failure as the ledger's error with its cause
/// and next step. A service keeps this and its ports, never the storage whole.
package struct StorageCalls: Sendable {
  /// How long any database work may take.
  package let timeout: Duration

  /// `body` within the timeout; its failure as the ledger's error.
  package func run<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result)
    async throws(LedgerError) -> Result
  {
    do {
      return try await bounded(body)
    } catch {
      throw LedgerStorage.mapped(error)
    }
  }

  /// `body` within the timeout; its failure as it is (``TimeoutError`` after the timeout).
  package func bounded<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result)
    async throws -> Result
  {
    try await withTimeout(timeout, body)
  }
}
