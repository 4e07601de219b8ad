import StoreLedgerCore

/// A payload type the App Store signs, with what the verifier needs to check it.
public protocol AppStoreSignedPayload: Decodable, Sendable {
  /// When Apple signed it: the instant certificate validity is judged at by default.
  var signingTime: Timestamp? { get }
  /// The identity fields this kind of payload carries.
  var identityClaims: IdentityClaims { get }
  /// Why the payload's parts disagree on whose it is, when they do: a notification with two
  /// body objects naming different apps. Nil for kinds with one identity.
  var identityDisagreement: VerificationError? { get }
}

extension AppStoreSignedPayload {
  public var identityDisagreement: VerificationError? { nil }
}

/// An identity field of a kind of payload: some kinds never carry it (renewal info has no
/// bundle id), others carry it but may leave it out (Sandbox notifications omit the App Apple ID).
public enum IdentityField<Value: Hashable & Sendable>: Hashable, Sendable {
  case notCarried
  case carried(Value?)
}

/// The identity a payload claims, and which of its fields apply to its kind.
public struct IdentityClaims: Sendable {
  public var environment: AppStoreEnvironment?
  public var bundleId: IdentityField<String>
  public var appAppleId: IdentityField<Int64>

  public init(
    environment: AppStoreEnvironment?, bundleId: IdentityField<String>,
    appAppleId: IdentityField<Int64>
  ) {
    self.environment = environment
    self.bundleId = bundleId
    self.appAppleId = appAppleId
  }
}

extension ResponseBodyV2DecodedPayload: AppStoreSignedPayload {
  public var signingTime: Timestamp? { signedDate }
  public var identityDisagreement: VerificationError? {
    guard let (first, second, field) = identityConflict else { return nil }
    let code: VerificationError.Code =
      switch field {
      case .environment: .environmentMismatch
      case .bundleId: .bundleIdMismatch
      case .appAppleId: .appAppleIdMismatch
      }
    return VerificationError(
      code,
      "the body objects \(first) and \(second) name different values of \(field.rawValue); "
        + "a notification belongs to one app")
  }
  public var identityClaims: IdentityClaims {
    IdentityClaims(
      environment: environment, bundleId: .carried(bundleId), appAppleId: .carried(appAppleId))
  }
}

extension JWSTransactionDecodedPayload: AppStoreSignedPayload {
  public var signingTime: Timestamp? { signedDate }
  public var identityClaims: IdentityClaims {
    IdentityClaims(environment: environment, bundleId: .carried(bundleId), appAppleId: .notCarried)
  }
}

extension JWSRenewalInfoDecodedPayload: AppStoreSignedPayload {
  public var signingTime: Timestamp? { signedDate }
  public var identityClaims: IdentityClaims {
    IdentityClaims(environment: environment, bundleId: .notCarried, appAppleId: .notCarried)
  }
}

extension JWSAppTransactionDecodedPayload: AppStoreSignedPayload {
  public var signingTime: Timestamp? { receiptCreationDate }
  public var identityClaims: IdentityClaims {
    IdentityClaims(
      environment: receiptType, bundleId: .carried(bundleId), appAppleId: .carried(appAppleId))
  }
}

extension DecodedRealtimeRequestBody: AppStoreSignedPayload {
  public var signingTime: Timestamp? { signedDate }
  public var identityClaims: IdentityClaims {
    IdentityClaims(
      environment: environment, bundleId: .notCarried, appAppleId: .carried(appAppleId))
  }
}
