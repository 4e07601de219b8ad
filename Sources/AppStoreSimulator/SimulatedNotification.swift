import AppStoreServerAPI
import StoreLedgerCore

/// A notification the simulated App Store sent (or is still sending), with its attempts.
public struct SimulatedNotification: Sendable, Hashable {
  public let uuid: String
  public let type: NotificationType
  public let subtype: NotificationSubtype?
  public let signedPayload: String
  /// The simulated time it was first due.
  public let sentAt: Timestamp
  /// The customer's transaction it is about, for the history's `transactionId` filter.
  public let transactionId: String?
  public internal(set) var attempts: [SendAttemptItem] = []

  public var delivered: Bool { attempts.contains { $0.sendAttemptResult == .success } }
}
