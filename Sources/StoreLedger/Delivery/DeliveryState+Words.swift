import StoreLedgerCore

extension DeliveryState {
  /// The state a caller names (a query's `state`, a command's `--state`); nil names none.
  /// Another word is refused with the states there are.
  public static func named(_ text: String?) throws(LedgerError) -> DeliveryState? {
    guard let text else { return nil }
    guard let state = DeliveryState(rawValue: text) else {
      throw LedgerError(
        .invalidRequest,
        "no delivery state is called “\(text)”: use "
          + allCases.map(\.rawValue).joined(separator: ", "))
    }
    return state
  }

  /// The state in a list's words: a pending delivery is shown as retrying (it is due now or
  /// at its next attempt).
  public var word: String { self == .pending ? "retrying" : rawValue }
}
