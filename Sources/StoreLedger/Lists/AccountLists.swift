import Foundation
import StoreLedgerCore

/// The lists across accounts that support and operations work from: accounts by what their
/// views hold, and subscriptions entering a status in a window. Newest first, a page at a
/// time, with totals. Read only; may be answered by a replica.
public struct AccountLists: Sendable {
  let support: any SupportReads

  /// The most rows one page holds.
  public static let pageLimit = 1000
  /// Environments a filter may name (Apple's `environment` values).
  public static let environments = ["Production", "Sandbox", "Xcode", "LocalTesting"]

  /// A page of the accounts `filter` admits, newest change first.
  public func accounts(
    _ filter: AccountListFilter, limit: Int = 50, cursor: String? = nil
  ) async throws(LedgerError) -> ListPage<AccountListRow> {
    try Self.check(limit: limit)
    if let environment = filter.environment, !Self.environments.contains(environment) {
      throw LedgerError(
        .invalidRequest,
        "no environment is called “\(environment)”: use \(Self.environments.joined(separator: ", "))"
      )
    }
    // A window that ends before it starts holds nothing: an empty list, not an error.
    if let from = filter.expiresFrom, let before = filter.expiresBefore, before <= from {
      return ListPage(rows: [], total: 0, nextCursor: nil)
    }
    let support = self.support
    return try await ListPage.read(
      list: "accounts", filter: filter.canonicalText, limit: limit, cursor: cursor,
      key: { parts in
        Int64(parts[0]).map {
          AccountListKey(changedAt: Timestamp(milliseconds: $0), appAccountToken: parts[1])
        }
      },
      read: { (key, count) throws(EventStoreError) in
        try await support.accountList(
          filter, after: key, limit: limit + 1, countTotal: count, consistency: .readYourWrites
        ).value
      },
      keyOf: { [String($0.changedAt.milliseconds), $0.appAccountToken] },
      mapped: LedgerStorage.mapped)
  }

  /// A page of the subscriptions that entered `filter.status` in its window by their status
  /// history (``StatusHistory``: on `effectiveAt`, Apple's clock), newest first.
  public func statusTransitions(
    _ filter: StatusTransitionFilter, limit: Int = 50, cursor: String? = nil
  ) async throws(LedgerError) -> ListPage<StatusTransitionRow> {
    try Self.check(limit: limit)
    guard filter.before > filter.from else { return ListPage(rows: [], total: 0, nextCursor: nil) }
    let support = self.support
    return try await ListPage.read(
      list: "transitions", filter: filter.canonicalText, limit: limit, cursor: cursor,
      key: { parts in
        guard parts.count == 3, let ms = Int64(parts[0]), let ordinal = Int(parts[2]) else {
          return nil
        }
        return StatusTransitionKey(
          effectiveAt: Timestamp(milliseconds: ms), appAccountToken: parts[1], ordinal: ordinal)
      },
      read: { (key, count) throws(EventStoreError) in
        try await support.statusTransitions(
          filter, after: key, limit: limit + 1, countTotal: count, consistency: .readYourWrites
        ).value
      },
      keyOf: { [String($0.effectiveAt.milliseconds), $0.appAccountToken, String($0.ordinal)] },
      mapped: LedgerStorage.mapped)
  }

  static func check(limit: Int) throws(LedgerError) {
    guard (1...pageLimit).contains(limit) else {
      throw LedgerError(.invalidRequest, "a page holds 1 to \(pageLimit) rows (`limit`)")
    }
  }
}

extension AccountLists {
  /// The status names a list filter takes besides the numbers.
  public static let statusNames: [(name: String, status: Int32)] = [
    ("active", 1), ("expired", 2), ("billing_retry", 3), ("grace_period", 4), ("revoked", 5),
  ]

  /// A status as people write it: 1–5 (or a later number Apple adds), or its name
  /// (`billing_retry`, `billingRetry`, `Billing retry` alike).
  public static func status(named text: String) throws(LedgerError) -> Int32 {
    let trimmed = text.trimmingCharacters(in: .whitespaces)
    if let number = Int32(trimmed), number > 0 { return number }
    let folded = trimmed.lowercased().filter { $0.isLetter }
    if let match = statusNames.first(where: { $0.name.filter(\.isLetter) == folded }) {
      return match.status
    }
    throw LedgerError(
      .invalidRequest,
      "“\(text)” is not a subscription status: use 1–5 or \(statusNames.map(\.name).joined(separator: ", "))"
    )
  }
}
