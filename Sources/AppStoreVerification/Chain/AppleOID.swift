import SwiftASN1

/// Apple's certificate marker extensions that App Store signing chains must carry.
enum AppleOID {
  /// Marks the Apple Worldwide Developer Relations intermediate.
  static let wwdrIntermediate: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 2, 1]
  /// Marks a leaf used for App Store receipt and transaction signing.
  static let receiptSigningLeaf: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 6, 11, 1]
}
