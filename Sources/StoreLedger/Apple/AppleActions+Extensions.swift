import AppStoreServerAPI
import Crypto
import Foundation
import StoreLedgerCore

/// A renewal-date extension as StoreLedger asked for it, and what came of it.
public struct ExtensionReport: Sendable, Encodable {
  public var requestIdentifier: String
  /// One subscription's extension.
  public var originalTransactionId: String?
  /// Every active subscriber of a product.
  public var productId: String?
  public var storefrontCountryCodes: [String]?
  public var extendByDays: Int32?
  public var extendReasonCode: Int32?
  /// One subscription: the new expiry Apple answered.
  public var effectiveDate: Timestamp?
  /// A mass extension: Apple's status.
  public var complete: Bool?
  public var succeededCount: Int64?
  public var failedCount: Int64?
  /// The RENEWAL_EXTENSION / SUMMARY notification of a mass extension is in the log.
  public var summaryStored: Bool?
  /// RENEWAL_EXTENDED notifications the log holds for it (one subscription: since the request).
  public var renewalExtendedStored: Int?
}

extension AppleActions {
  /// Extend a Subscription Renewal Date, recorded in the log (stream
  /// `extension:<requestIdentifier>`). The same request identifier again gives Apple's first
  /// answer and stores nothing new.
  public func extendRenewalDate(
    originalTransactionId: String, days: Int32, reason: Int32, requestIdentifier: String? = nil,
    apple: AppStoreServerAPIClient, at time: Date = Date()
  ) async throws(LedgerError) -> ExtensionReport {
    try Self.checkExtension(days: days, reason: reason)
    let id =
      requestIdentifier
      ?? Self.requestIdentifier(["one", originalTransactionId, "\(days)", "\(reason)"], at: time)
    let answer: ExtendRenewalDateResponse
    do {
      answer = try await apple.extendRenewalDate(
        originalTransactionId,
        ExtendRenewalDateRequest(
          extendByDays: days, extendReasonCode: reason, requestIdentifier: id))
    } catch {
      throw LedgerError.apple(error, doing: "extending the renewal date")
    }
    var report = ExtensionReport(
      requestIdentifier: id, originalTransactionId: originalTransactionId, extendByDays: days,
      extendReasonCode: reason, effectiveDate: answer.effectiveDate)
    try await recordExtension(report, at: time)
    let support = self.support
    let streams = configuration.purchaseStreams(ofChain: originalTransactionId)
    var stored = 0
    for stream in streams {
      stored += try await calls.run {
        try await support.notificationCount(
          in: stream, type: "RENEWAL_EXTENDED", since: Timestamp(time).milliseconds - 60_000)
      }
    }
    report.renewalExtendedStored = stored
    return report
  }

  /// Extend Subscription Renewal Dates for All Active Subscribers of `productId`, recorded in
  /// the log; Apple reports progress with notifications, ``extensionStatus`` reads it.
  public func extendAllSubscribers(
    productId: String, days: Int32, reason: Int32, storefronts: [String]? = nil,
    requestIdentifier: String? = nil, apple: AppStoreServerAPIClient, at time: Date = Date()
  ) async throws(LedgerError) -> ExtensionReport {
    try Self.checkExtension(days: days, reason: reason)
    guard !productId.isEmpty else { throw LedgerError(.invalidRequest, "name the product") }
    let id =
      requestIdentifier
      ?? Self.requestIdentifier(
        ["all", productId, "\(days)", "\(reason)"] + (storefronts ?? []).sorted(), at: time)
    do {
      _ = try await apple.massExtendRenewalDate(
        MassExtendRenewalDateRequest(
          requestIdentifier: id, extendByDays: days, extendReasonCode: reason,
          productId: productId, storefrontCountryCodes: storefronts))
    } catch {
      throw LedgerError.apple(error, doing: "extending the subscribers' renewal dates")
    }
    let report = ExtensionReport(
      requestIdentifier: id, productId: productId, storefrontCountryCodes: storefronts,
      extendByDays: days, extendReasonCode: reason)
    try await recordExtension(report, at: time)
    return report
  }

  /// Apple's status of a mass extension, with what the log holds of its notifications.
  public func extensionStatus(
    productId: String, requestIdentifier: String, apple: AppStoreServerAPIClient
  ) async throws(LedgerError) -> ExtensionReport {
    let status: MassExtendRenewalDateStatusResponse
    do {
      status = try await apple.massExtensionStatus(
        productId: productId, requestIdentifier: requestIdentifier)
    } catch {
      throw LedgerError.apple(error, doing: "reading the extension's status")
    }
    let support = self.support
    var summary: (succeeded: Int64?, failed: Int64?)?
    for environment in configuration.environments where summary == nil {
      let stream = "app:\(environment.rawValue):\(configuration.bundleId)"
      summary = try await calls.run {
        try await support.extensionSummary(in: stream, requestIdentifier: requestIdentifier)
      }
    }
    return ExtensionReport(
      requestIdentifier: requestIdentifier, productId: productId, complete: status.complete,
      succeededCount: status.succeededCount, failedCount: status.failedCount,
      summaryStored: summary != nil)
  }

  /// The request identifier of an extension the caller did not name: the same request on
  /// the same (UTC) day gets the same identifier, so a retry is answered by Apple as the
  /// first time instead of extending twice. Name one to extend the same way twice a day.
  static func requestIdentifier(_ parts: [String], at time: Date) -> String {
    let day = Int64(time.timeIntervalSince1970) / 86_400
    let digest = SHA256.hash(data: Data((parts + ["\(day)"]).joined(separator: "|").utf8))
    return "sl-" + digest.prefix(16).map { String(format: "%02x", $0) }.joined()
  }

  static func checkExtension(days: Int32, reason: Int32) throws(LedgerError) {
    guard (1...90).contains(days) else {
      throw LedgerError(.invalidRequest, "Apple extends by 1 to 90 days")
    }
    guard (0...3).contains(reason) else {
      throw LedgerError(
        .invalidRequest,
        "the reason is 0 undeclared, 1 customer satisfaction, 2 other or 3 service issue/outage")
    }
  }

  private func recordExtension(_ report: ExtensionReport, at time: Date)
    async throws(LedgerError)
  {
    let stream = "extension:\(report.requestIdentifier)"
    try await recordAction(
      EventTypes.renewalExtensionRequested, member: "renewalExtensionRequested",
      body: report, stream: stream,
      key: "\(stream):\(report.originalTransactionId ?? report.productId ?? "")")
  }
}
