import Foundation

/// One relay attempt and its outcome, as the log records it (`ledger.relay_attempted.v1` in
/// `relay:<target>`): StoreLedger's own record of what it sent where, never Apple's evidence.
/// The body is named by its SHA-256 and length, not repeated: the notification it came from is
/// in the log (``streamId`` and ``streamVersion``).
public struct RelayAttempt: Sendable, Hashable, Codable {
  public enum Outcome: String, Sendable, Hashable, Codable {
    /// The target answered 2xx.
    case delivered
    /// It did not; the attempt is retried.
    case failed
    /// It did not, and retries ran out: the delivery is dead-lettered.
    case dead
  }

  public static let eventType = EventTypes.relayAttempted
  public static let member = "relayAttempt"

  public let target: String
  /// The destination's host, port and path (never its query).
  public let urlKey: String
  /// The notification's event key in the log (`asn2:<notificationUUID>`).
  public let notification: String
  public let notificationType: String?
  public let environment: String?
  public let streamId: String
  public let streamVersion: Int64
  /// The attempt, from 1.
  public let attempt: Int
  public let outcome: Outcome
  /// The target's HTTP status, when it answered.
  public let status: Int?
  /// Why it failed, when it did (no body of the answer, at most 200 characters).
  public let error: String?
  public let sentAt: Timestamp
  public let answeredAt: Timestamp
  /// SHA-256 of the bytes sent, lower-case hex, and their count.
  public let bodySHA256: String
  public let bodyBytes: Int

  public init(
    target: String, urlKey: String, notification: String, notificationType: String?,
    environment: String?, streamId: String, streamVersion: Int64, attempt: Int,
    outcome: Outcome, status: Int?, error: String?, sentAt: Timestamp, answeredAt: Timestamp,
    bodySHA256: String, bodyBytes: Int
  ) {
    self.target = target
    self.urlKey = urlKey
    self.notification = notification
    self.notificationType = notificationType
    self.environment = environment
    self.streamId = streamId
    self.streamVersion = streamVersion
    self.attempt = attempt
    self.outcome = outcome
    self.status = status
    self.error = error
    self.sentAt = sentAt
    self.answeredAt = answeredAt
    self.bodySHA256 = bodySHA256
    self.bodyBytes = bodyBytes
  }

  /// The attempt's key in the log: one record per target, notification and attempt number.
  public var idempotencyKey: String { "relay:\(target):\(notification):\(attempt)" }
}
