/// Where one outbound delivery stands — a change to a backend's webhook or a notification
/// relayed to a target. Each queue keeps one row per delivery in one of these states (its
/// table's CHECK holds it to them).
public enum DeliveryState: String, Sendable, Hashable, Codable, CaseIterable {
  /// Waiting for its first attempt or for its next retry.
  case pending
  /// The receiver answered 2xx.
  case delivered
  /// Its retries ran out (or what it would send is gone): a dead letter, resent only when
  /// asked.
  case dead

  /// The state a stored row names; a text the tables cannot hold is a decoding failure.
  public static func stored(_ text: String) throws(EventStoreError) -> DeliveryState {
    guard let state = DeliveryState(rawValue: text) else {
      throw EventStoreError(
        .databaseRejected,
        "a delivery row holds the state \(text), which this release does not know: run the "
          + "release that wrote it")
    }
    return state
  }
}
