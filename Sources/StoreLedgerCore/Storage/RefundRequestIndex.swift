/// The refund requests (Apple's `CONSUMPTION_REQUEST`s) by state, id and due time; each is
/// its own stream, read through the event log.
public protocol RefundRequestIndex: Sendable {
  /// Up to `limit` request streams due at `now` (Unix milliseconds), oldest due first.
  func dueRequests(now: Int64, limit: Int) async throws(EventStoreError) -> [String]

  /// Up to `limit` request streams in `states` (every one when empty), newest first.
  func requests(inStates states: [String], limit: Int) async throws(EventStoreError)
    -> [String]

  /// The streams of the requests whose notification UUID or transaction id is `id`, newest
  /// first.
  func requests(withId id: String) async throws(EventStoreError) -> [String]

  /// How many requests are in each state, late or not, with each decision of Apple's.
  func requestCounts() async throws(EventStoreError) -> [RefundRequestCount]
}
