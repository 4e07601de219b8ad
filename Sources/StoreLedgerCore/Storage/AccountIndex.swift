/// Who holds what: the accounts a stream is indexed under (written with each append), the
/// refund requests about a purchase, and the app downloads seen with each purchase.
public protocol AccountIndex: Sendable {
  /// The accounts any of `streams` is indexed under, each once, sorted.
  func accounts(holding streams: [String]) async throws(EventStoreError) -> [String]

  /// The streams of the refund requests about purchases of the chain `originalTransactionId`,
  /// sorted.
  func refundRequestStreams(ofChain originalTransactionId: String)
    async throws(EventStoreError) -> [String]

  /// The seat streams (`seats:<env>:<originalTransactionId>`) holding claims with any of
  /// `seatClaimIds` (in any case; claim ids are stored lower-case), sorted: where an `UNCLAIM_SEATS` naming them
  /// belongs.
  func seatStreams(holdingClaims seatClaimIds: [String]) async throws(EventStoreError)
    -> [String]

  /// Notes `sightings` (a download seen with a purchase chain, and the account Apple or the app
  /// named, if any; a sighting without an account keeps the one noted before) and returns the
  /// sightings of their downloads stored before this note: what decides who holds each
  /// download.
  func note(_ sightings: [DownloadSighting]) async throws(EventStoreError) -> [DownloadSighting]

  /// The accounts holding a download: those a sighting of it named, and those holding a
  /// purchase chain it was seen with.
  func accounts(holdingDownload appTransactionId: String, environment: String)
    async throws(EventStoreError) -> [String]
}

/// An app download (Apple's `appTransactionId`) seen with a purchase chain in an environment,
/// and the account named with it, if any.
public struct DownloadSighting: Sendable, Hashable {
  public var environment: String
  public var appTransactionId: String
  public var chain: String
  public var token: String?

  public init(environment: String, appTransactionId: String, chain: String, token: String?) {
    self.environment = environment
    self.appTransactionId = appTransactionId
    self.chain = chain
    self.token = token
  }
}
