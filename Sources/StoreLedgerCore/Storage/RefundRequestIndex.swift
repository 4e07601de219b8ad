/// The refund requests (Apple's `CONSUMPTION_REQUEST`s) by state, id and due time; each is
/// its own stream, read through the event log.
public protocol RefundRequestIndex: Sendable {
  /// Up to `limit` request streams due at `now` (Unix milliseconds), oldest due first.
  func dueRequests(now: Int64, limit: Int) async throws(EventStoreError) -> [String]

  /// Up to `limit` requests in `states` (every one when empty) after `key`, newest first
  /// (then by stream), each as its key; with how many the states hold when `countTotal`.
  func requests(
    inStates states: [String], after key: RefundRequestKey?, limit: Int, countTotal: Bool
  ) async throws(EventStoreError) -> ListRead<RefundRequestKey>

  /// The streams of the requests whose notification UUID or transaction id is `id`, newest
  /// first.
  func requests(withId id: String) async throws(EventStoreError) -> [String]

  /// How many requests are in each state, late or not, with each decision of Apple's.
  func requestCounts() async throws(EventStoreError) -> [RefundRequestCount]
}

/// A refund request's place in its lists: newest request first, then by stream.
public struct RefundRequestKey: Sendable, Hashable {
  /// When Apple asked, Unix milliseconds.
  public var requestedAt: Int64
  public var streamId: String

  public init(requestedAt: Int64, streamId: String) {
    self.requestedAt = requestedAt
    self.streamId = streamId
  }

  /// Whether `self` comes after `key` in a list's order.
  public func isAfter(_ key: RefundRequestKey) -> Bool {
    requestedAt < key.requestedAt || (requestedAt == key.requestedAt && streamId > key.streamId)
  }
}
