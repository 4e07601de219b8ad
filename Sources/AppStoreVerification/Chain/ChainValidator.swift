import Crypto
import Foundation
import SwiftASN1
import X509

/// Validates `leaf → intermediate → trusted root` the way App Store chains must validate:
/// RFC 5280 path rules for a chain of exactly three, plus Apple's marker extensions.
///
/// With a cache, a pair of certificate bytes already validated costs a dictionary lookup.
final class ChainValidator: Sendable {
  let roots: TrustedRoots
  let cache: ChainCache?

  init(roots: TrustedRoots, cacheCapacity: Int?) {
    self.roots = roots
    self.cache = cacheCapacity.map { ChainCache(capacity: $0) }
  }

  func signingKey(leaf: [UInt8], intermediate: [UInt8], at time: Date) throws(VerificationError)
    -> P256.Signing.PublicKey
  {
    let key = ChainCache.Key(leaf: leaf, intermediate: intermediate)
    if let cached = cache?.chain(for: key, at: time) {
      return cached.signingKey
    }
    let chain = try validate(leafDER: leaf, intermediateDER: intermediate, at: time)
    cache?.insert(chain, for: key)
    return chain.signingKey
  }

  func validate(leafDER: [UInt8], intermediateDER: [UInt8], at time: Date) throws(VerificationError)
    -> VerifiedChain
  {
    let leaf = try Self.parse(leafDER)
    let intermediate = try Self.parse(intermediateDER)
    try Self.checkIssued(leaf, by: intermediate)
    let root = try anchor(for: intermediate)
    try Self.checkCertificateAuthority(intermediate)
    try Self.checkCriticalExtensionsUnderstood([leaf, intermediate])
    let signingKey = try Self.signingKey(of: leaf)
    try Self.checkAppleMarkers(leaf: leaf, intermediate: intermediate)
    let chain = VerifiedChain(
      signingKey: signingKey,
      validFrom: max(leaf.notValidBefore, intermediate.notValidBefore, root.notValidBefore),
      validUntil: min(leaf.notValidAfter, intermediate.notValidAfter, root.notValidAfter))
    guard chain.isValid(at: time) else {
      throw VerificationError(
        .certificateNotValidAtTime, "a certificate of the chain is not valid at the validation time"
      )
    }
    return chain
  }

  private static func parse(_ der: [UInt8]) throws(VerificationError) -> Certificate {
    do {
      return try Certificate(derEncoded: der)
    } catch {
      throw VerificationError(.invalidCertificateChain, "an x5c entry is not a DER certificate")
    }
  }

  private static func checkIssued(_ child: Certificate, by issuer: Certificate)
    throws(VerificationError)
  {
    guard child.issuer == issuer.subject,
      issuer.publicKey.isValidSignature(child.signature, for: child)
    else {
      throw VerificationError(
        .invalidCertificateChain, "the leaf is not signed by the intermediate")
    }
  }

  /// The trusted root that issued `intermediate`; `x5c[2]` plays no part.
  private func anchor(for intermediate: Certificate) throws(VerificationError) -> Certificate {
    for root in roots.certificates
    where intermediate.issuer == root.subject
      && root.publicKey.isValidSignature(intermediate.signature, for: intermediate)
    {
      return root
    }
    throw VerificationError(.untrustedRoot, "the chain does not end at a trusted root")
  }

  private static func checkCertificateAuthority(_ intermediate: Certificate)
    throws(VerificationError)
  {
    let basicConstraints = try? intermediate.extensions.basicConstraints
    guard case .isCertificateAuthority = basicConstraints else {
      throw VerificationError(.invalidCertificateChain, "the intermediate is not a CA")
    }
    if let keyUsage = try? intermediate.extensions.keyUsage, !keyUsage.keyCertSign {
      throw VerificationError(
        .invalidCertificateChain, "the intermediate may not sign certificates")
    }
  }

  private static let understoodCriticalExtensions: Set<ASN1ObjectIdentifier> = [
    .X509ExtensionID.basicConstraints, .X509ExtensionID.keyUsage,
    .X509ExtensionID.extendedKeyUsage,
  ]

  private static func checkCriticalExtensionsUnderstood(_ certificates: [Certificate])
    throws(VerificationError)
  {
    for certificate in certificates {
      for ext in certificate.extensions
      where ext.critical && !understoodCriticalExtensions.contains(ext.oid) {
        throw VerificationError(
          .invalidCertificateChain, "a certificate has an unknown critical extension")
      }
    }
  }

  private static func signingKey(of leaf: Certificate) throws(VerificationError)
    -> P256.Signing.PublicKey
  {
    if let keyUsage = try? leaf.extensions.keyUsage, !keyUsage.digitalSignature {
      throw VerificationError(.invalidCertificateChain, "the leaf may not sign data")
    }
    guard let key = P256.Signing.PublicKey(leaf.publicKey) else {
      throw VerificationError(.invalidCertificateChain, "the leaf key is not a P-256 key")
    }
    return key
  }

  private static func checkAppleMarkers(leaf: Certificate, intermediate: Certificate)
    throws(VerificationError)
  {
    guard intermediate.extensions[oid: AppleOID.wwdrIntermediate] != nil else {
      throw VerificationError(
        .missingAppleOID, "the intermediate lacks the Apple WWDR marker 1.2.840.113635.100.6.2.1")
    }
    guard leaf.extensions[oid: AppleOID.receiptSigningLeaf] != nil else {
      throw VerificationError(
        .missingAppleOID, "the leaf lacks the receipt-signing marker 1.2.840.113635.100.6.11.1")
    }
  }
}
