import StoreLedgerCore

/// What a ``SignedDataVerifier`` trusts and which identity it expects.
///
/// Leave an identity field nil to skip that check (tools that inspect foreign data);
/// an engine sets all of them. Production requires `appAppleId`, as Apple's libraries do.
public struct VerifierConfiguration: Sendable {
  public var trustedRoots: TrustedRoots
  public var bundleId: String?
  /// Checked only for Production payloads: Apple omits it in Sandbox.
  public var appAppleId: Int64?
  public var environment: AppStoreEnvironment?
  public var validationTime: ValidationTime
  /// Decode Xcode and LocalTesting data (never Apple-signed) through the `decodeUnverified…` calls.
  public var allowUnverifiedEnvironments: Bool
  /// How many validated chains to remember; nil validates the full chain every time.
  public var chainCacheCapacity: Int?

  public init(
    trustedRoots: TrustedRoots = .apple,
    bundleId: String? = nil,
    appAppleId: Int64? = nil,
    environment: AppStoreEnvironment? = nil,
    validationTime: ValidationTime = .signedDate,
    allowUnverifiedEnvironments: Bool = false,
    chainCacheCapacity: Int? = 64
  ) {
    self.trustedRoots = trustedRoots
    self.bundleId = bundleId
    self.appAppleId = appAppleId
    self.environment = environment
    self.validationTime = validationTime
    self.allowUnverifiedEnvironments = allowUnverifiedEnvironments
    self.chainCacheCapacity = chainCacheCapacity
  }
}
