import Foundation

/// The kinds of data the App Store signs, as recognised from a payload's fields.
public enum SignedDataKind: String, Sendable, CaseIterable {
  case notification
  case transaction
  case renewalInfo
  case appTransaction
  case realtimeRequest

  private struct Probe: Decodable {
    var notificationType: String?
    var receiptType: String?
    var userLocale: String?
    var requestIdentifier: String?
    var transactionId: String?
    var bundleId: String?
    var type: String?
  }

  /// Recognises the kind of `jws` from its (not yet verified) payload.
  ///
  /// `notificationType` marks a notification, `receiptType` an app transaction,
  /// `userLocale`/`requestIdentifier` a retention request; a `transactionId`, `bundleId` or
  /// `type` a transaction. Renewal info has none of these.
  public static func of(_ jws: String) throws(VerificationError) -> SignedDataKind {
    let token = try CompactJWS(jws)
    let probe: Probe
    do {
      probe = try JSONDecoding.decoder.decode(Probe.self, from: token.payloadJSON)
    } catch {
      throw VerificationError(.malformedPayload, "the payload is not a JSON object")
    }
    if probe.notificationType != nil { return .notification }
    if probe.receiptType != nil { return .appTransaction }
    if probe.userLocale != nil || probe.requestIdentifier != nil { return .realtimeRequest }
    if probe.transactionId != nil || probe.bundleId != nil || probe.type != nil {
      return .transaction
    }
    return .renewalInfo
  }
}
