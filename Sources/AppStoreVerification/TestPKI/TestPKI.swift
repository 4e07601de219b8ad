import Crypto
import Foundation
import SwiftASN1
import X509

/// A private certificate hierarchy shaped like Apple's, that signs data as the App Store does.
///
/// Root and intermediate are P-384 and sign with ECDSA-SHA384; the leaf is P-256 and signs
/// JWS with ES256; the intermediate and leaf carry Apple's marker extensions; every certificate
/// names its own key (Subject Key Identifier) and all but the root their issuer's (Authority
/// Key Identifier), as Apple's do and as strict X.509 checkers (OpenSSL's) require. Trust
/// ``trustedRoots`` instead of Apple's root to verify what it signs. For tests, the
/// simulator and demos only: its root is never trusted by default.
public struct TestPKI: Sendable {
  public let root: Certificate
  public let intermediate: Certificate
  public let leaf: Certificate
  private let leafKey: P256.Signing.PrivateKey

  public init(options: TestPKIOptions = TestPKIOptions()) throws {
    let rootKey = P384.Signing.PrivateKey()
    let intermediateKey = P384.Signing.PrivateKey()
    let leafKey = P256.Signing.PrivateKey()
    let rootName = try DistinguishedName {
      CommonName("\(options.name) Root CA")
      OrganizationName(options.name)
    }
    let intermediateName = try DistinguishedName {
      CommonName("\(options.name) Worldwide Developer Relations CA")
      OrganizationName(options.name)
    }
    let (rootPublic, intermediatePublic, leafPublic) = (
      Certificate.PublicKey(rootKey.publicKey), Certificate.PublicKey(intermediateKey.publicKey),
      Certificate.PublicKey(leafKey.publicKey)
    )
    self.root = try Certificate(
      version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
      notValidBefore: options.authorityValidity.lowerBound,
      notValidAfter: options.authorityValidity.upperBound,
      issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA384,
      extensions: try Self.authorityExtensions(
        isCA: true, appleMarker: nil, subject: rootPublic, issuer: nil),
      issuerPrivateKey: .init(rootKey))
    self.intermediate = try Certificate(
      version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
      notValidBefore: options.authorityValidity.lowerBound,
      notValidAfter: options.authorityValidity.upperBound,
      issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA384,
      extensions: try Self.authorityExtensions(
        isCA: options.intermediateIsCertificateAuthority,
        appleMarker: options.intermediateHasAppleMarker ? AppleOID.wwdrIntermediate : nil,
        subject: intermediatePublic, issuer: rootPublic, pathLength: 0),
      issuerPrivateKey: .init(rootKey))
    self.leaf = try Certificate(
      version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
      notValidBefore: options.leafValidity.lowerBound,
      notValidAfter: options.leafValidity.upperBound,
      issuer: intermediateName,
      subject: try DistinguishedName {
        CommonName("\(options.name) App Store Receipt Signing")
        OrganizationName(options.name)
      },
      signatureAlgorithm: .ecdsaWithSHA384,
      extensions: try Self.leafExtensions(
        appleMarker: options.leafHasAppleMarker ? AppleOID.receiptSigningLeaf : nil,
        subject: leafPublic, issuer: intermediatePublic),
      issuerPrivateKey: .init(intermediateKey))
    self.leafKey = leafKey
  }

  /// The roots a verifier must trust to accept this PKI's signatures.
  public var trustedRoots: TrustedRoots {
    // The root was built from valid parts just above, so it always parses back.
    try! TrustedRoots(derEncoded: [rootDER])
  }

  public var rootDER: [UInt8] { Self.der(root) }
  public var intermediateDER: [UInt8] { Self.der(intermediate) }
  public var leafDER: [UInt8] { Self.der(leaf) }

  /// `x5c` as Apple sends it: leaf, intermediate, root.
  public var chain: [[UInt8]] { [leafDER, intermediateDER, rootDER] }

  /// Signs `payloadJSON` as a compact JWS the way the App Store does.
  ///
  /// - Parameters:
  ///   - alg: the header's `alg`; anything but ES256 makes data Apple would never send.
  ///   - x5c: the certificates to put in the header, DER; defaults to ``chain``.
  public func sign(payloadJSON: [UInt8], alg: String = "ES256", x5c: [[UInt8]]? = nil) -> String {
    let certificates = (x5c ?? chain).map {
      "\"\(Base64Bytes.encode($0, alphabet: .standardPadded))\""
    }
    let header = "{\"alg\":\"\(alg)\",\"x5c\":[\(certificates.joined(separator: ","))]}"
    let signingInput =
      Base64Bytes.encode(Array(header.utf8), alphabet: .urlUnpadded) + "."
      + Base64Bytes.encode(payloadJSON, alphabet: .urlUnpadded)
    // ECDSA signing over a P-256 key cannot fail for in-memory bytes.
    let signature = try! leafKey.signature(for: Array(signingInput.utf8))
    return signingInput + "."
      + Base64Bytes.encode(signature.rawRepresentation, alphabet: .urlUnpadded)
  }

  /// Encodes `payload` as JSON and signs it.
  public func sign(_ payload: some Encodable, alg: String = "ES256", x5c: [[UInt8]]? = nil) throws
    -> String
  {
    sign(payloadJSON: Array(try JSONEncoder().encode(payload)), alg: alg, x5c: x5c)
  }

  private static func der(_ certificate: Certificate) -> [UInt8] {
    var serializer = DER.Serializer()
    // A certificate this type holds was parsed or built from valid parts; it serializes.
    try! serializer.serialize(certificate)
    return serializer.serializedBytes
  }

  private static func authorityExtensions(
    isCA: Bool, appleMarker: ASN1ObjectIdentifier?, subject: Certificate.PublicKey,
    issuer: Certificate.PublicKey?, pathLength: Int? = nil
  ) throws -> Certificate.Extensions {
    var extensions = [
      try Certificate.Extension(
        isCA ? .isCertificateAuthority(maxPathLength: pathLength) : .notCertificateAuthority,
        critical: true),
      try Certificate.Extension(KeyUsage(keyCertSign: true, cRLSign: true), critical: true),
      try Certificate.Extension(SubjectKeyIdentifier(hash: subject), critical: false),
    ]
    if let issuer { extensions.append(try authorityKeyIdentifier(issuer)) }
    if let appleMarker { extensions.append(marker(appleMarker)) }
    return try Certificate.Extensions(extensions)
  }

  private static func leafExtensions(
    appleMarker: ASN1ObjectIdentifier?, subject: Certificate.PublicKey,
    issuer: Certificate.PublicKey
  ) throws -> Certificate.Extensions {
    var extensions = [
      try Certificate.Extension(BasicConstraints.notCertificateAuthority, critical: true),
      try Certificate.Extension(KeyUsage(digitalSignature: true), critical: true),
      try Certificate.Extension(SubjectKeyIdentifier(hash: subject), critical: false),
      try authorityKeyIdentifier(issuer),
    ]
    if let appleMarker { extensions.append(marker(appleMarker)) }
    return try Certificate.Extensions(extensions)
  }

  /// The issuer's key identifier, the same bytes as the issuer's own Subject Key Identifier.
  private static func authorityKeyIdentifier(_ issuer: Certificate.PublicKey) throws
    -> Certificate.Extension
  {
    try Certificate.Extension(
      AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: issuer).keyIdentifier),
      critical: false)
  }

  /// Apple's markers hold an ASN.1 NULL; only their presence matters.
  private static func marker(_ oid: ASN1ObjectIdentifier) -> Certificate.Extension {
    Certificate.Extension(oid: oid, critical: false, value: [0x05, 0x00])
  }
}
