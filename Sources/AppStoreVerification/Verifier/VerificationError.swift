/// Why a piece of signed App Store data was not accepted.
///
/// `code` is stable and meant for programs (logs, metrics, HTTP mapping); `message` is for
/// people. Neither ever contains payload content, identifiers or key material.
public struct VerificationError: Error, Hashable, Sendable, CustomStringConvertible {
  public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
      self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// Not three base64url segments, or a header that is not a JSON object.
    public static let malformedJWS = Code(rawValue: "malformed_jws")
    /// The payload is not JSON of the expected shape (a field of the wrong type).
    public static let malformedPayload = Code(rawValue: "malformed_payload")
    /// `alg` is not ES256.
    public static let unsupportedAlgorithm = Code(rawValue: "unsupported_algorithm")
    /// `x5c` missing, not three certificates, unparsable, or the chain does not link up.
    public static let invalidCertificateChain = Code(rawValue: "invalid_certificate_chain")
    /// The chain does not end at a configured trusted root.
    public static let untrustedRoot = Code(rawValue: "untrusted_root")
    /// The intermediate or the leaf lacks Apple's marker extension.
    public static let missingAppleOID = Code(rawValue: "missing_apple_oid")
    /// A certificate of the chain is not valid at the validation time.
    public static let certificateNotValidAtTime = Code(rawValue: "certificate_not_valid_at_time")
    /// The ES256 signature does not verify under the leaf's key.
    public static let invalidSignature = Code(rawValue: "invalid_signature")
    /// The payload's bundle id differs from the configured one.
    public static let bundleIdMismatch = Code(rawValue: "bundle_id_mismatch")
    /// The payload's App Apple ID differs from the configured one (Production).
    public static let appAppleIdMismatch = Code(rawValue: "app_apple_id_mismatch")
    /// The payload's environment differs from the configured one.
    public static let environmentMismatch = Code(rawValue: "environment_mismatch")
    /// Xcode or LocalTesting data, which Apple does not sign, without the explicit option.
    public static let unverifiedEnvironmentNotAllowed = Code(
      rawValue: "unverified_environment_not_allowed")
    /// A StoreKit 1 receipt that is not the base64 PKCS#7 or property-list shape Apple writes.
    public static let malformedReceipt = Code(rawValue: "malformed_receipt")
    /// The verifier was configured inconsistently (for example Production without an App Apple ID).
    public static let invalidConfiguration = Code(rawValue: "invalid_configuration")
  }

  public let code: Code
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code): \(message)" }
}
