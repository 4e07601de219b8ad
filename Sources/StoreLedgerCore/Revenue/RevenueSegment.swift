/// A stretch of time a subscription was in force without anything changing: one period (or
/// the part of it before a refund or an upgrade cut it), with what it is worth per month.
/// Segments of one subscription never overlap; seat additions in the same period add up in
/// one segment. A stretch in billing retry is not in force: a timeline keeps it apart
/// (``RevenueTimeline/billingRetry``), in the same shape.
public struct RevenueSegment: Hashable, Sendable, Codable {
  public var originalTransactionId: String
  /// The transaction the segment's attributes come from: the newest purchase in force.
  public var transactionId: String
  public var start: Timestamp
  public var end: Timestamp
  /// A free trial (`offerDiscountType` FREE_TRIAL, or a zero price under an offer).
  public var isTrial: Bool
  /// Monthly recurring revenue of the transactions in force, in milliunits of the currency
  /// (rules V1–V3 of projections/revenue.md).
  public var monthlyValue: Int64
  /// Seats in force for a multiseat subscription, 0 otherwise.
  public var seats: Int64
  /// Billing grace after the period's end (status 4): still in force, reported apart.
  public var inGrace: Bool
  public var attributes: MetricsAttributes

  public init(
    originalTransactionId: String, transactionId: String, start: Timestamp, end: Timestamp,
    isTrial: Bool, monthlyValue: Int64, seats: Int64, inGrace: Bool = false,
    attributes: MetricsAttributes
  ) {
    self.originalTransactionId = originalTransactionId
    self.transactionId = transactionId
    self.start = start
    self.end = end
    self.isTrial = isTrial
    self.monthlyValue = monthlyValue
    self.seats = seats
    self.inGrace = inGrace
    self.attributes = attributes
  }

  /// In force at `time`.
  public func holds(_ time: Timestamp) -> Bool { start <= time && time < end }
}
