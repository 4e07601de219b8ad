import Foundation

/// How to mint a ``TestPKI``: by default shaped like Apple's App Store chain, with knobs
/// to break one property at a time for negative tests.
public struct TestPKIOptions: Sendable {
  /// Validity of the root and intermediate.
  public var authorityValidity: ClosedRange<Date>
  /// Validity of the signing leaf.
  public var leafValidity: ClosedRange<Date>
  /// Give the intermediate Apple's WWDR marker 1.2.840.113635.100.6.2.1.
  public var intermediateHasAppleMarker: Bool
  /// Give the leaf Apple's receipt-signing marker 1.2.840.113635.100.6.11.1.
  public var leafHasAppleMarker: Bool
  /// Make the intermediate a CA (basicConstraints cA=TRUE).
  public var intermediateIsCertificateAuthority: Bool
  /// A label mixed into the certificate names, to tell several test PKIs apart.
  public var name: String

  public init(
    authorityValidity: ClosedRange<Date> = TestPKIOptions.defaultValidity,
    leafValidity: ClosedRange<Date> = TestPKIOptions.defaultValidity,
    intermediateHasAppleMarker: Bool = true,
    leafHasAppleMarker: Bool = true,
    intermediateIsCertificateAuthority: Bool = true,
    name: String = "StoreLedger Test"
  ) {
    self.authorityValidity = authorityValidity
    self.leafValidity = leafValidity
    self.intermediateHasAppleMarker = intermediateHasAppleMarker
    self.leafHasAppleMarker = leafHasAppleMarker
    self.intermediateIsCertificateAuthority = intermediateIsCertificateAuthority
    self.name = name
  }

  /// 2020-01-01 to 2040-01-01: covers every date tests and simulations use.
  public static let defaultValidity: ClosedRange<Date> =
    Date(timeIntervalSince1970: 1_577_836_800)...Date(timeIntervalSince1970: 2_208_988_800)
}
