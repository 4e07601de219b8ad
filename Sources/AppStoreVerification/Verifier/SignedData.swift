import StoreLedgerCore

/// How much a decoded payload can be trusted; fixed at the type level.
public protocol TrustLevel: Sendable {}

/// Signature, chain to a trusted root, Apple's markers and identity were all checked.
public enum AppleSigned: TrustLevel {}

/// Xcode or LocalTesting data, decoded without any check because the caller asked for it.
public enum Unverified: TrustLevel {}

/// A decoded App Store payload together with the exact bytes it came from.
///
/// Only ``SignedDataVerifier`` creates values of this type, so a
/// `SignedData<_, AppleSigned>` in hand means the checks passed.
public struct SignedData<Payload: AppStoreSignedPayload, Trust: TrustLevel>: Sendable {
  public let payload: Payload
  /// The payload's JSON exactly as signed, unknown fields included.
  public let payloadJSON: [UInt8]
  /// The original compact JWS, for storage and later re-verification.
  public let compactJWS: String

  /// The same data under the trust level the caller already established (internal only).
  func retagged<Other: TrustLevel>() -> SignedData<Payload, Other> {
    SignedData<Payload, Other>(payload: payload, payloadJSON: payloadJSON, compactJWS: compactJWS)
  }
}

/// A notification with each of its nested JWS decoded at the same trust level.
public struct SignedNotification<Trust: TrustLevel>: Sendable {
  public let notification: SignedData<ResponseBodyV2DecodedPayload, Trust>
  public let transaction: SignedData<JWSTransactionDecodedPayload, Trust>?
  public let renewalInfo: SignedData<JWSRenewalInfoDecodedPayload, Trust>?
  public let appTransaction: SignedData<JWSAppTransactionDecodedPayload, Trust>?

  public var payload: ResponseBodyV2DecodedPayload { notification.payload }
}

public typealias VerifiedNotification = SignedNotification<AppleSigned>
public typealias VerifiedTransaction = SignedData<JWSTransactionDecodedPayload, AppleSigned>
public typealias VerifiedRenewalInfo = SignedData<JWSRenewalInfoDecodedPayload, AppleSigned>
public typealias VerifiedAppTransaction = SignedData<JWSAppTransactionDecodedPayload, AppleSigned>
public typealias VerifiedRealtimeRequest = SignedData<DecodedRealtimeRequestBody, AppleSigned>
