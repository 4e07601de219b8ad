import StoreLedgerCore

/// The body of Get Notification History: a time window (required) and at most one of
/// `notificationType` (with an optional subtype) and `transactionId`.
public struct NotificationHistoryRequest: Hashable, Sendable, Codable {
  public var startDate: Timestamp?
  public var endDate: Timestamp?
  public var notificationType: NotificationType?
  public var notificationSubtype: NotificationSubtype?
  /// Only notifications that never reached the server (including those still retried).
  public var onlyFailures: Bool?
  public var transactionId: String?

  public init(startDate: Timestamp? = nil, endDate: Timestamp? = nil) {
    self.startDate = startDate
    self.endDate = endDate
  }

  /// The checks Apple makes before answering, in its order.
  public func validated() throws(APIErrorResponse.Failure) -> (start: Timestamp, end: Timestamp) {
    guard let startDate else { throw .init(.invalidStartDate, "startDate is required") }
    guard let endDate else { throw .init(.invalidEndDate, "endDate is required") }
    guard startDate <= endDate else {
      throw .init(.startDateAfterEndDate, "startDate after endDate")
    }
    if transactionId != nil, notificationType != nil {
      throw .init(.multipleFiltersSupplied, "send transactionId or notificationType, not both")
    }
    if notificationSubtype != nil, notificationType == nil {
      throw .init(.invalidNotificationType, "a subtype needs its notificationType")
    }
    return (startDate, endDate)
  }
}
