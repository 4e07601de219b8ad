import StoreLedgerCore

/// A page of Get Notification History.
public struct NotificationHistoryResponse: Hashable, Sendable, Codable {
  public var notificationHistory: [NotificationHistoryResponseItem]?
  public var hasMore: Bool?
  public var paginationToken: String?

  public init() {}
}
