import StoreLedgerCore

/// A payload type the App Store signs, with what the verifier needs to check it.
public protocol AppStoreSignedPayload: Decodable, Sendable {
  /// When Apple signed it: the instant certificate validity is judged at by default.
  var signingTime: Timestamp? { get }
  /// The identity fields this kind of payload carries.
  var identityClaims: IdentityClaims { get }
}

/// The identity a payload claims, and which of its fields apply to its kind.
public struct IdentityClaims: Sendable {
  public var environment: AppStoreEnvironment?
  /// nil when this kind of payload has no bundle id (renewal info).
  public var bundleId: String??
  /// nil when this kind of payload has no App Apple ID (transaction, renewal info).
  public var appAppleId: Int64??

  public init(environment: AppStoreEnvironment?, bundleId: String??, appAppleId: Int64??) {
    self.environment = environment
    self.bundleId = bundleId
    self.appAppleId = appAppleId
  }
}

extension ResponseBodyV2DecodedPayload: AppStoreSignedPayload {
  public var signingTime: Timestamp? { signedDate }
  public var identityClaims: IdentityClaims {
    IdentityClaims(
      environment: environment, bundleId: .some(bundleId), appAppleId: .some(appAppleId))
  }
}

extension JWSTransactionDecodedPayload: AppStoreSignedPayload {
  public var signingTime: Timestamp? { signedDate }
  public var identityClaims: IdentityClaims {
    IdentityClaims(environment: environment, bundleId: .some(bundleId), appAppleId: nil)
  }
}

extension JWSRenewalInfoDecodedPayload: AppStoreSignedPayload {
  public var signingTime: Timestamp? { signedDate }
  public var identityClaims: IdentityClaims {
    IdentityClaims(environment: environment, bundleId: nil, appAppleId: nil)
  }
}

extension JWSAppTransactionDecodedPayload: AppStoreSignedPayload {
  public var signingTime: Timestamp? { receiptCreationDate }
  public var identityClaims: IdentityClaims {
    IdentityClaims(
      environment: receiptType, bundleId: .some(bundleId), appAppleId: .some(appAppleId))
  }
}

extension DecodedRealtimeRequestBody: AppStoreSignedPayload {
  public var signingTime: Timestamp? { signedDate }
  public var identityClaims: IdentityClaims {
    IdentityClaims(environment: environment, bundleId: nil, appAppleId: .some(appAppleId))
  }
}
