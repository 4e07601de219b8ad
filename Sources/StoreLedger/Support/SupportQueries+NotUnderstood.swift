import AppStoreVerification
import Foundation
import StoreLedgerCore

extension SupportQueries {
  /// The most notifications a page of those not understood holds.
  public static let notUnderstoodPageLimit = 1000

  /// The newest `limit` notifications stored that this release does not understand (the first
  /// page of ``notUnderstoodPage(limit:cursor:)``, without its total).
  public func notUnderstood(limit: Int = 100) async throws(LedgerError)
    -> [NotUnderstoodNotification]
  {
    guard limit > 0 else {
      throw LedgerError(.invalidRequest, "limit must be a positive number of notifications")
    }
    let support = self.support
    return try await calls.run {
      try await support.notUnderstood(
        knownTypes: Self.knownTypes, knownBodies: Self.knownBodies, after: nil, limit: limit,
        countTotal: false)
    }.rows
  }

  /// A page of the notifications stored that this release does not understand, newest stored
  /// first: unrouted evidence (with where a later release routed it), and notifications routed
  /// to this app whose type or body object this release does not know. `total` is how many
  /// the whole list holds (counted on the first page); `cursor` is the `nextCursor` of the
  /// page before. Every such notification is on exactly one page.
  public func notUnderstoodPage(limit: Int = 100, cursor: String? = nil) async throws(LedgerError)
    -> ListPage<NotUnderstoodNotification>
  {
    guard (1...Self.notUnderstoodPageLimit).contains(limit) else {
      throw LedgerError(
        .invalidRequest, "a page holds 1 to \(Self.notUnderstoodPageLimit) notifications (`limit`)")
    }
    let support = self.support
    return try await ListPage<NotUnderstoodNotification>.read(
      list: "not-understood", filter: "", limit: limit, cursor: cursor,
      key: { parts in
        Int64(parts[1]).map { NotUnderstoodKey(streamId: parts[0], streamVersion: $0) }
      },
      read: { (key, count) throws(EventStoreError) in
        try await support.notUnderstood(
          knownTypes: Self.knownTypes, knownBodies: Self.knownBodies, after: key,
          limit: limit + 1, countTotal: count)
      },
      keyOf: { [$0.streamId, String($0.streamVersion)] }, mapped: LedgerStorage.mapped)
  }

  private static var knownTypes: [String] { NotificationType.knownValues.map(\.rawValue) }
  private static var knownBodies: [String] { ResponseBodyV2DecodedPayload.knownBodyObjects }
}
