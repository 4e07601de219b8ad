import AppStoreServerAPI
import Foundation
import Logging
import StoreLedgerCore

/// Catches up on notifications that never reached the webhook: pages Get Notification
/// History (only failures, or the whole window) and ingests each notification through the
/// same path as the webhook, marked `recovery`. What was stored before is a duplicate and
/// changes nothing, so recovery can run again at any time.
public struct NotificationRecovery: Sendable {
  /// What one run found and did.
  public struct Report: Sendable, Hashable, Codable {
    /// Notifications Apple listed.
    public var found = 0
    /// Stored now for the first time.
    public var appended = 0
    /// Already in the log.
    public var alreadyStored = 0
    /// Refused by the ledger (by error code), e.g. another bundle or environment.
    public var rejected: [String: Int] = [:]
    /// Newly stored, by `notificationType`.
    public var appendedByType: [String: Int] = [:]

    public init() {}
  }

  let ledger: Ledger
  let client: AppStoreServerAPIClient
  let logger: Logger

  public init(ledger: Ledger, client: AppStoreServerAPIClient, logger: Logger) {
    self.ledger = ledger
    self.client = client
    self.logger = logger
  }

  /// Recovers the notifications Apple sent between `start` and `end`; with `onlyFailures`
  /// (the default) only those it could not deliver.
  public func recover(
    from start: Date, to end: Date = Date(), onlyFailures: Bool = true,
    progress: @Sendable (Report) -> Void = { _ in }
  ) async throws -> Report {
    var request = NotificationHistoryRequest(startDate: Timestamp(start), endDate: Timestamp(end))
    request.onlyFailures = onlyFailures
    var report = Report()
    for try await page in client.notificationHistory(request) {
      for item in page.items {
        report.found += 1
        await ingest(item.notification.notification.compactJWS, into: &report)
      }
      progress(report)
    }
    logger.info(
      "notification recovery finished",
      metadata: [
        "found": "\(report.found)", "appended": "\(report.appended)",
        "already_stored": "\(report.alreadyStored)",
      ])
    return report
  }

  private func ingest(_ signedPayload: String, into report: inout Report) async {
    do {
      let ingested = try await ledger.ingest(
        notification: signedPayload, source: "recovery", freshlyFetched: true)
      if ingested.wasDuplicate {
        report.alreadyStored += 1
      } else {
        report.appended += 1
        report.appendedByType[ingested.notificationType ?? "?", default: 0] += 1
      }
    } catch {
      report.rejected[error.code.rawValue, default: 0] += 1
    }
  }
}
