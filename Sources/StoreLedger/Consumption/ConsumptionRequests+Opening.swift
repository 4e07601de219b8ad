import AppStoreVerification
import Foundation
import StoreLedgerCore

/// Refund requests in the log: opened with Apple's CONSUMPTION_REQUEST in the same
/// transaction that stores the notification, decided one command at a time with the stream's
/// version expected (so two workers never both claim a request), read back for people.
extension ConsumptionRequests {
  static func stream(environment: String, requestId: String) -> String {
    "consumption:\(environment):\(requestId.lowercased())"
  }

  /// The event that opens a refund request, for a verified CONSUMPTION_REQUEST about a
  /// purchase; nil for any other notification.
  static func opening(_ verified: VerifiedNotification) -> BatchAppend? {
    let payload = verified.payload
    guard payload.notificationType == .consumptionRequest,
      let uuid = payload.notificationUUID, let signed = payload.signedDate,
      let transaction = verified.transaction?.payload, let id = transaction.transactionId
    else { return nil }
    let environment = payload.environment?.rawValue ?? "unknown"
    let requested = ConsumptionEvent.Requested(
      requestId: uuid.lowercased(), environment: environment, transactionId: id,
      originalTransactionId: transaction.originalTransactionId ?? id,
      productId: transaction.productId, productType: transaction.type,
      appAccountToken: transaction.appAccountToken, reason: payload.data?.consumptionRequestReason,
      requestedAt: signed)
    let stream = stream(environment: environment, requestId: uuid)
    return BatchAppend(
      event: EventCodec.newEvent(
        .requested(requested), key: "\(stream):requested", source: "webhook"),
      streamId: stream)
  }

  /// The opening of a refund request, joined to the accounts that hold its purchase (those the
  /// notification names and those its stream already belongs to), so their change feeds tell
  /// of the request and its answer.
  func opening(
    _ verified: VerifiedNotification, in stream: String, for tokens: [String]
  ) async throws(LedgerError) -> BatchAppend? {
    guard var opening = Self.opening(verified) else { return nil }
    let holders: [String]
    do {
      holders = try await index.accounts(holding: [stream])
    } catch {
      throw LedgerStorage.mapped(error)
    }
    let keys = Set(tokens.filter { !$0.isEmpty }.map(AppAccountToken.normalized) + holders)
    opening.index = StreamIndex(keys: keys.sorted(), streams: [opening.streamId])
    return opening
  }

}
