import AppStoreServerAPI
import AppStoreVerification
import Foundation
import StoreLedgerCore

/// The end-to-end check of a fresh set-up: Apple sends a TEST notification to the URL it has
/// for the environment, and this ledger is expected to store it.
public struct WebhookCheck: Sendable, Encodable {
  public var notificationUUID: String?
  /// Apple's delivery attempts, as Get Test Notification Status reports them.
  public var attempts: [Attempt]
  /// Where this ledger stored the TEST notification; nil when it did not arrive in time.
  public var storedIn: String?
  public var storedAt: Timestamp?
  /// The check passed: Apple delivered and this ledger stored it.
  public var passed: Bool
  /// What to do when it did not pass.
  public var advice: String?

  public struct Attempt: Sendable, Encodable {
    public var date: Timestamp?
    public var result: String?
  }
}

extension AppleActions {
  /// Requests a test notification, waits (up to `timeout`) until Apple reports an attempt and
  /// this ledger has stored the notification, and says how the delivery went. The check is
  /// recorded in the log (stream `webhook-check:<bundleId>`).
  public func checkWebhook(
    apple: AppStoreServerAPIClient, timeout: Duration = .seconds(60),
    poll: Duration = .milliseconds(500)
  ) async throws(LedgerError) -> WebhookCheck {
    let token: String
    do {
      token = try await apple.requestTestNotification()
    } catch {
      throw LedgerError.apple(error, doing: "requesting a test notification")
    }
    let deadline = ContinuousClock.now + timeout
    var status: NotificationHistoryPage.Item?
    var stored: (streamId: String, streamVersion: Int64, recordedAt: Date)?
    while ContinuousClock.now < deadline, status == nil || stored == nil {
      if status == nil { status = try await testStatus(token, apple) }
      if let uuid = status?.notification.payload.notificationUUID {
        let support = self.support
        stored = try await calls.run {
          try await support.event(withKey: "asn2:\(uuid)")
        }
      }
      if status == nil || stored == nil { try? await Task.sleep(for: poll) }
    }
    let check = Self.verdict(status, stored)
    try await record(check)
    return check
  }

  private func testStatus(_ token: String, _ apple: AppStoreServerAPIClient)
    async throws(LedgerError) -> NotificationHistoryPage.Item?
  {
    do {
      return try await apple.testNotificationStatus(token)
    } catch let error as AppStoreAPIError where error.apiErrorCode == .testNotificationNotFound {
      return nil
    } catch {
      throw LedgerError.apple(error, doing: "reading the test notification's status")
    }
  }

  static func verdict(
    _ status: NotificationHistoryPage.Item?,
    _ stored: (streamId: String, streamVersion: Int64, recordedAt: Date)?
  ) -> WebhookCheck {
    let attempts = (status?.sendAttempts ?? []).map {
      WebhookCheck.Attempt(date: $0.attemptDate, result: $0.sendAttemptResult?.rawValue)
    }
    let advice: String? =
      if status == nil {
        "Apple made no attempt in time: check the App Store Server Notifications URL (V2) "
          + "for this environment in App Store Connect"
      } else if stored == nil {
        "Apple tried (\(attempts.last?.result ?? "no result")) but this ledger did not store it: "
          + "check that the URL reaches this server's /v1/notifications/appstore"
      } else { nil }
    return WebhookCheck(
      notificationUUID: status?.notification.payload.notificationUUID, attempts: attempts,
      storedIn: stored?.streamId, storedAt: stored.map { Timestamp($0.recordedAt) },
      passed: stored != nil, advice: advice)
  }

  private func record(_ check: WebhookCheck) async throws(LedgerError) {
    try await recordAction(
      EventTypes.webhookChecked, member: "webhookChecked", body: check,
      stream: "webhook-check:\(configuration.bundleId)")
  }
}
