import AppStoreVerification
import Foundation
import StoreLedgerCore

/// What `verify` prints: the payload exactly as signed (unknown fields included), with each
/// nested JWS replaced by its decoded object.
struct VerifiedOutput {
  let kind: SignedDataKind
  let verification: String
  let payload: Any

  static func make(jws: String, verifier: SignedDataVerifier) async throws -> VerifiedOutput {
    let kind = try SignedDataKind.of(jws)
    do {
      return try await make(kind: kind, jws: jws, trust: AppleSigned.self, verifier: verifier)
    } catch let error as VerificationError
      where error.code == .unverifiedEnvironmentNotAllowed
      && verifier.configuration.allowUnverifiedEnvironments
    {
      return try await make(kind: kind, jws: jws, trust: Unverified.self, verifier: verifier)
    }
  }

  private static func make<Trust: TrustLevel>(
    kind: SignedDataKind, jws: String, trust: Trust.Type, verifier: SignedDataVerifier
  ) async throws -> VerifiedOutput {
    let verification = Trust.self == AppleSigned.self ? "verified" : "unverified"
    func open<P: AppStoreSignedPayload>(_ type: P.Type) async throws -> [UInt8] {
      Trust.self == AppleSigned.self
        ? try await verifier.verify(jws, as: type).payloadJSON
        : try verifier.decodeUnverified(jws, as: type).payloadJSON
    }
    let object: Any
    switch kind {
    case .notification:
      object = try await notificationObject(jws: jws, trust: trust, verifier: verifier)
    case .transaction: object = try jsonObject(await open(JWSTransactionDecodedPayload.self))
    case .renewalInfo: object = try jsonObject(await open(JWSRenewalInfoDecodedPayload.self))
    case .appTransaction: object = try jsonObject(await open(JWSAppTransactionDecodedPayload.self))
    case .realtimeRequest: object = try jsonObject(await open(DecodedRealtimeRequestBody.self))
    }
    return VerifiedOutput(kind: kind, verification: verification, payload: object)
  }

  private static func notificationObject<Trust: TrustLevel>(
    jws: String, trust: Trust.Type, verifier: SignedDataVerifier
  ) async throws -> Any {
    if Trust.self == AppleSigned.self {
      return try await nestedObject(verifier.verifyNotification(jws))
    }
    return try await nestedObject(verifier.decodeUnverifiedNotification(jws))
  }

  private static func nestedObject<Trust>(_ notification: SignedNotification<Trust>) throws -> Any {
    guard var object = try jsonObject(notification.notification.payloadJSON) as? [String: Any]
    else { return try jsonObject(notification.notification.payloadJSON) }
    if var data = object["data"] as? [String: Any] {
      if let transaction = notification.transaction {
        data["signedTransactionInfo"] = try jsonObject(transaction.payloadJSON)
      }
      if let renewalInfo = notification.renewalInfo {
        data["signedRenewalInfo"] = try jsonObject(renewalInfo.payloadJSON)
      }
      object["data"] = data
    }
    if var appData = object["appData"] as? [String: Any], let app = notification.appTransaction {
      appData["signedAppTransactionInfo"] = try jsonObject(app.payloadJSON)
      object["appData"] = appData
    }
    return object
  }

  private static func jsonObject(_ bytes: [UInt8]) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
  }

  func render(envelope: Bool) throws -> String {
    let value: Any =
      envelope
      ? ["kind": kind.rawValue, "verification": verification, "payload": payload] : payload
    let options: JSONSerialization.WritingOptions =
      envelope
      ? [.sortedKeys, .withoutEscapingSlashes]
      : [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return String(
      decoding: try JSONSerialization.data(withJSONObject: value, options: options), as: UTF8.self)
  }
}
