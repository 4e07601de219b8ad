import Foundation
import StoreLedgerCore

/// Each customer's refund consent as the app records it: appended to `consent:<token>`, read
/// back by the refund-request worker to decide whether `customerConsented` may be sent. The
/// stream is found by the token; it is not in the account's index, because it folds nothing
/// and changes no view.
public struct RefundConsents: Sendable {
  let log: any EventLog
  let calls: StorageCalls

  /// Records the customer's answer. Idempotent by `idempotencyKey` (the app's, per account);
  /// without one, by the answer and the instant it was collected.
  @discardableResult
  public func record(
    appAccountToken: String, consented: Bool, collectedAt: Date = Date(), method: String? = nil,
    idempotencyKey: String? = nil
  ) async throws(LedgerError) -> IngestReceipt {
    let token = try AppAccountToken.checked(appAccountToken)
    // The App Store opened in 2008; an answer collected later than now (beyond clock skew)
    // cannot be in force yet.
    guard collectedAt.timeIntervalSince1970 >= 1_199_145_600,
      collectedAt <= Date().addingTimeInterval(300)
    else {
      throw LedgerError(
        .invalidRequest, "`collectedAt` is when the app collected the answer: not in the future")
    }
    if let method, method.count > 200 {
      throw LedgerError(
        .invalidRequest, "`method` says how consent was collected in ≤ 200 characters")
    }
    let consent = RefundConsent(
      appAccountToken: token, consented: consented, collectedAt: Timestamp(collectedAt),
      method: method)
    let stream = RefundConsent.stream(of: token)
    let key =
      "\(stream):"
      + (idempotencyKey
        ?? "\(consent.collectedAt.milliseconds):\(consented ? "granted" : "withdrawn")")
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let payload: [UInt8]
    do {
      payload = Array(try encoder.encode(["refundConsent": consent]))
    } catch {
      throw LedgerError(.invalidRequest, "the consent cannot be recorded")
    }
    let event = EventCodec.newRecord(
      payload, type: EventTypes.refundConsent, key: key, source: "api")
    let log = self.log
    let result = try await calls.run {
      try await log.append([event], to: stream, indexing: nil)
    }
    return IngestReceipt(
      streamId: stream, idempotencyKey: key, streamVersion: result.lastVersion,
      wasDuplicate: result.wasDuplicate)
  }

  /// Every answer recorded for the customer, oldest collected first.
  public func history(for appAccountToken: String) async throws(LedgerError) -> [RefundConsent] {
    let token = try AppAccountToken.checked(appAccountToken)
    let log = self.log
    let rows = try await calls.run {
      try await log.readStreams([RefundConsent.stream(of: token)])
    }
    struct Stored: Decodable { let refundConsent: RefundConsent }
    return rows.filter { $0.eventType == EventTypes.refundConsent }.compactMap {
      try? JSONDecoder().decode(Stored.self, from: Data($0.payload)).refundConsent
    }.sorted { $0.collectedAt.milliseconds < $1.collectedAt.milliseconds }
  }

  /// The answer in force at `time`, if any.
  public func inForce(for appAccountToken: String, at time: Timestamp) async throws(LedgerError)
    -> RefundConsent?
  {
    RefundConsent.inForce(try await history(for: appAccountToken), at: time)
  }
}
