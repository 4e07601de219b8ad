/// The changes a refund request's events make for the account that holds its purchase (rules
/// C15–C17 in projections/changes.md): Apple asked (pending, with the deadline), StoreLedger's
/// answer was accepted (answered: in time or late), or the request ended unanswered (closed:
/// expired, failed or skipped). Claims, retries and failed attempts change nothing a backend
/// acts on.
public enum ConsumptionChanges {
  /// The change `event` makes; `transactions` holds the purchase of every request opened
  /// before it (by request id), which later events do not repeat.
  public static func change(
    of event: ConsumptionEvent, request: String, account: String,
    transactions: inout [String: String]
  ) -> AccountChange? {
    switch event {
    case .requested(let requested):
      transactions[request] = requested.transactionId
      return AccountChange(
        .consumptionRequestPending, account: account, subject: request,
        old: requested.transactionId, new: String(requested.deadline.milliseconds))
    case .answered(let answered):
      return change(
        .consumptionRequestAnswered, request: request, account: account,
        transactions: transactions, new: answered.late ? "late" : "in_time")
    case .closed(let closed):
      return change(
        .consumptionRequestClosed, request: request, account: account,
        transactions: transactions, new: closed.outcome.rawValue)
    case .sending, .attemptFailed:
      return nil
    }
  }

  private static func change(
    _ kind: AccountChange.Kind, request: String, account: String,
    transactions: [String: String], new: String
  ) -> AccountChange {
    AccountChange(kind, account: account, subject: request, old: transactions[request], new: new)
  }
}
