import AppStoreVerification
import Foundation
import StoreLedgerCore

extension SupportQueries {
  /// The notifications stored that this release does not understand, newest first: unrouted
  /// evidence (with where a later release routed it), and notifications routed to this app
  /// whose type or body object this release does not know.
  public func notUnderstood(limit: Int = 100) async throws(LedgerError)
    -> [NotUnderstoodNotification]
  {
    guard limit > 0 else {
      throw LedgerError(.invalidRequest, "limit must be a positive number of notifications")
    }
    let support = self.support
    return try await calls.run {
      try await support.notUnderstood(
        knownTypes: NotificationType.knownValues.map(\.rawValue),
        knownBodies: ResponseBodyV2DecodedPayload.knownBodyObjects, limit: limit)
    }
  }
}
