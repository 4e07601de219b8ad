import SwiftASN1
import X509

/// The root certificates a verifier accepts as the end of a chain.
///
/// Only these are trusted; the root a JWS carries in `x5c[2]` never is.
public struct TrustedRoots: Sendable {
  let certificates: [Certificate]

  /// Roots given as DER bytes (for example the `.cer` files from apple.com/certificateauthority).
  public init(derEncoded roots: [[UInt8]]) throws(VerificationError) {
    guard !roots.isEmpty else {
      throw VerificationError(.invalidConfiguration, "at least one trusted root is required")
    }
    var certificates: [Certificate] = []
    for der in roots {
      do {
        certificates.append(try Certificate(derEncoded: der))
      } catch {
        throw VerificationError(.invalidConfiguration, "a trusted root is not a DER certificate")
      }
    }
    self.certificates = certificates
  }

  /// Roots given as PEM text; several certificates may follow one another.
  public init(pemEncoded pem: String) throws(VerificationError) {
    try self.init(derEncoded: try Self.derCertificates(pemEncoded: pem))
  }

  /// The DER bytes of each certificate in PEM text.
  public static func derCertificates(pemEncoded pem: String) throws(VerificationError) -> [[UInt8]]
  {
    do {
      return try PEMDocument.parseMultiple(pemString: pem).map { $0.derBytes }
    } catch {
      throw VerificationError(.invalidConfiguration, "trusted roots are not valid PEM")
    }
  }

  /// Apple Root CA - G3, the root of App Store signing chains.
  public static let apple: TrustedRoots = {
    do {
      return try TrustedRoots(derEncoded: [AppleRootCertificates.rootCAG3])
    } catch {
      preconditionFailure("the embedded Apple Root CA - G3 does not parse")
    }
  }()
}
