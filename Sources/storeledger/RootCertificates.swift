import AppStoreVerification
import Foundation

/// Trusted roots from DER or PEM files; Apple Root CA - G3 when none are given.
enum RootCertificates {
  /// The DER of the certificates in the files (DER or PEM).
  static func der(_ paths: [String]) throws -> [[UInt8]] {
    var der: [[UInt8]] = []
    for path in paths {
      let bytes = try InputReader.bytes(path)
      if let text = String(bytes: bytes, encoding: .utf8), text.contains("-----BEGIN") {
        der.append(contentsOf: try TrustedRoots.derCertificates(pemEncoded: text))
      } else {
        der.append(bytes)
      }
    }
    return der
  }

  static func load(_ paths: [String]) throws -> TrustedRoots {
    guard !paths.isEmpty else { return .apple }
    return try TrustedRoots(derEncoded: try der(paths))
  }
}
