import Foundation
import StoreLedgerCore

/// The lists across accounts that support and operations work from: accounts by what their
/// views hold, and subscriptions entering a status in a window. Newest first, a page at a
/// time, with totals. Read only; may be answered by a replica.
public struct AccountLists: Sendable {
  let ledger: Ledger

  public init(ledger: Ledger) {
    self.ledger = ledger
  }

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
    if let from = filter.expiresFrom, let before = filter.expiresBefore, before <= from {
      throw LedgerError(
        .invalidRequest,
        "the expiry window ends before it starts: `expiresBefore` must be later than `expiresFrom`")
    }
    let list = "accounts"
    var key: AccountListKey?
    var total: Int?
    if let cursor {
      let read = try ListCursor(
        text: cursor, list: list, filter: filter.canonicalText, keyParts: 2)
      guard let ms = Int64(read.key[0]) else { throw ListCursor.invalid("it was changed") }
      key = AccountListKey(changedAt: Timestamp(milliseconds: ms), appAccountToken: read.key[1])
      total = read.total
    }
    let read: ListRead<AccountListRow>
    do {
      read = try await ledger.storage.support.accountList(
        filter, after: key, limit: limit + 1, countTotal: total == nil,
        consistency: .readYourWrites
      ).value
    } catch {
      throw LedgerStorage.mapped(error)
    }
    let rows = Array(read.rows.prefix(limit))
    let count = total ?? read.total ?? rows.count
    let next = read.rows.count > limit ? rows.last : nil
    return ListPage(
      rows: rows, total: count,
      nextCursor: next.map {
        ListCursor(
          total: count, key: [String($0.changedAt.milliseconds), $0.appAccountToken]
        ).text(list: list, filter: filter.canonicalText)
      })
  }

  /// A page of the subscriptions that entered `filter.status` in its window, newest first.
  public func statusTransitions(
    _ filter: StatusTransitionFilter, limit: Int = 50, cursor: String? = nil
  ) async throws(LedgerError) -> ListPage<StatusTransitionRow> {
    try Self.check(limit: limit)
    guard filter.before > filter.from else {
      throw LedgerError(
        .invalidRequest, "the window ends before it starts: `before` must be later than `from`")
    }
    let list = "transitions"
    var key: StatusTransitionKey?
    var total: Int?
    if let cursor {
      let read = try ListCursor(
        text: cursor, list: list, filter: filter.canonicalText, keyParts: 2)
      guard let ms = Int64(read.key[0]), let position = Int64(read.key[1]) else {
        throw ListCursor.invalid("it was changed")
      }
      key = StatusTransitionKey(occurredAt: Timestamp(milliseconds: ms), position: position)
      total = read.total
    }
    let read: ListRead<StatusTransitionRow>
    do {
      read = try await ledger.storage.support.statusTransitions(
        filter, after: key, limit: limit + 1, countTotal: total == nil,
        consistency: .readYourWrites
      ).value
    } catch {
      throw LedgerStorage.mapped(error)
    }
    let rows = Array(read.rows.prefix(limit))
    let count = total ?? read.total ?? rows.count
    let next = read.rows.count > limit ? rows.last : nil
    return ListPage(
      rows: rows, total: count,
      nextCursor: next.map {
        ListCursor(total: count, key: [String($0.occurredAt.milliseconds), String($0.position)])
          .text(list: list, filter: filter.canonicalText)
      })
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
