import StoreLedgerCore

/// Apple's refund requests as the log holds them: each request with its answer and Apple's
/// decision, what the ledger knows of the purchase, what a policy answers from it, and the
/// counts `/metrics` reports.
public struct ConsumptionRequests: Sendable {
  let log: any EventLog
  let index: any AccountIndex
  let refundRequests: any RefundRequestIndex
  let calls: StorageCalls
  /// Accounts' states, for what the ledger knows of a request's purchase.
  let reader: AccountReader
  let consents: RefundConsents

  package init(
    log: any EventLog, index: any AccountIndex, refundRequests: any RefundRequestIndex,
    calls: StorageCalls, reader: AccountReader, consents: RefundConsents
  ) {
    self.log = log
    self.index = index
    self.refundRequests = refundRequests
    self.calls = calls
    self.reader = reader
    self.consents = consents
  }
}
