import AppStoreServerAPI
import AppStoreVerification
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
    /// The start of the window asked for, when it lay beyond what Apple keeps (180 days in
    /// Production, 30 in Sandbox) and the window was started at `searchedFrom` instead.
    public var clampedFrom: Timestamp?
    /// The start of the window searched.
    public var searchedFrom: Timestamp?

    public init() {}
  }

  let ingestion: SignedDataIngest
  let client: AppStoreServerAPIClient
  let logger: Logger
  /// The App Store environment the client talks to: it decides how far back Apple keeps
  /// notifications. Nil for another server (a simulator keeps its own window).
  let environment: AppStoreEnvironment?

  init(
    ingestion: SignedDataIngest, client: AppStoreServerAPIClient,
    environment: AppStoreEnvironment?, logger: Logger
  ) {
    self.ingestion = ingestion
    self.client = client
    self.environment = environment
    self.logger = logger
  }

  /// How far back Get Notification History reaches (reference §6.5): 180 days in Production,
  /// 30 in Sandbox.
  public static func historyWindow(_ environment: AppStoreEnvironment) -> TimeInterval {
    Double(environment == .sandbox ? 30 : 180) * 86_400
  }

  /// `start`, or the oldest instant Apple still keeps when `start` lies before it (a minute
  /// inside the window, so a request made at `now` is not refused by the time it arrives).
  public static func clamp(_ start: Date, environment: AppStoreEnvironment, now: Date) -> Date {
    max(start, now.addingTimeInterval(-historyWindow(environment) + 60))
  }

  /// Recovers the notifications Apple sent between `start` and `end`; with `onlyFailures`
  /// (the default) only those it could not deliver.
  public func recover(
    from start: Date, to end: Date = Date(), onlyFailures: Bool = true,
    progress: @Sendable (Report) -> Void = { _ in }
  ) async throws -> Report {
    var report = Report()
    let from = environment.map { Self.clamp(start, environment: $0, now: Date()) } ?? start
    report.searchedFrom = Timestamp(from)
    if from > start { report.clampedFrom = Timestamp(start) }
    guard from < end else { return report }
    var request = NotificationHistoryRequest(startDate: Timestamp(from), endDate: Timestamp(end))
    request.onlyFailures = onlyFailures
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
      let ingested = try await ingestion.ingest(
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
