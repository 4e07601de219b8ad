import AppStoreVerification
import Foundation
import NIOCore
import StoreLedgerCore

/// One page of transactions, each verified.
public struct TransactionHistoryPage: Sendable {
  public let transactions: [VerifiedTransaction]
  /// Store the last page's revision to fetch only newer changes next time.
  public let revision: String?
  public let hasMore: Bool
  public let environment: AppStoreEnvironment?
}

/// One page of Get Notification History: each notification verified, with its attempts.
public struct NotificationHistoryPage: Sendable {
  public struct Item: Sendable {
    public let notification: VerifiedNotification
    public let sendAttempts: [SendAttemptItem]
  }

  public let items: [Item]
  public let hasMore: Bool
}

/// One subscription of Get All Subscription Statuses, its signed data verified.
public struct SubscriptionStatusEntry: Sendable {
  public let subscriptionGroupIdentifier: String?
  public let originalTransactionId: String?
  public let status: SubscriptionStatus?
  public let transaction: VerifiedTransaction
  public let renewalInfo: VerifiedRenewalInfo
}

/// A failed attempt that may succeed later, and how long to wait first.
struct RetryableFailure: Error {
  let error: AppStoreAPIError
  let wait: Duration
  /// A backoff (doubled per attempt) rather than a time Apple named.
  let doubles: Bool

  init(_ error: AppStoreAPIError, wait: Duration) {
    self.error = error
    self.wait = wait
    self.doubles = false
  }

  /// The initial backoff with jitter (a random factor in [1, 2)), doubled per attempt.
  init(_ error: AppStoreAPIError, backoff client: AppStoreServerAPIClient) {
    self.error = error
    self.wait = client.configuration.initialBackoff * Double.random(in: 1..<2)
    self.doubles = true
  }
}

extension AppStoreServerAPIClient {
  /// Apple's `Retry-After` is a UNIX time in milliseconds; a small number is taken as seconds
  /// to wait, as HTTP usually means it.
  static func wait(untilRetryAfter header: String?, now: Date = Date()) -> Duration? {
    guard let header, let value = Int64(header.trimmingCharacters(in: .whitespaces)) else {
      return nil
    }
    if value < 10_000_000_000 { return .seconds(value) }
    let milliseconds = value - Int64(now.timeIntervalSince1970 * 1000)
    return .milliseconds(max(0, milliseconds))
  }

  static func timeAmount(_ duration: Duration) -> TimeAmount {
    let (seconds, attoseconds) = duration.components
    return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }

  /// A transaction id as one path segment; Apple's ids are decimal, so anything else is
  /// refused before it reaches the URL.
  static func pathComponent(_ id: String) throws -> String {
    guard !id.isEmpty, id.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else {
      throw AppStoreAPIError(
        .apiError, apiErrorCode: .invalidTransactionId, "invalid transaction id")
    }
    return id
  }

  static func queryString(_ items: [(name: String, value: String)]) -> String {
    guard !items.isEmpty else { return "" }
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-._~")
    let pairs = items.map { item in
      let value = item.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
      return "\(item.name)=\(value)"
    }
    return "?" + pairs.joined(separator: "&")
  }
}
