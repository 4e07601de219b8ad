import Crypto
import Foundation
import SwiftASN1
@_spi(FixedExpiryValidationTime) import X509

/// Validates `leaf → intermediate → trusted root` the way App Store chains must validate:
/// swift-certificates' `Verifier` walks the path under its RFC 5280 policy and
/// ``AppleChainPolicy`` (a chain of exactly three, Apple's marker extensions). When it refuses,
/// the checks below name the reason as a ``VerificationError/Code``; they never accept what
/// the verifier refused.
///
/// With a cache, a pair of certificate bytes already validated costs a dictionary lookup, so
/// the walk runs once per signing certificate.
final class ChainValidator: Sendable {
  let roots: TrustedRoots
  let cache: ChainCache?

  init(roots: TrustedRoots, cacheCapacity: Int?) {
    self.roots = roots
    self.cache = cacheCapacity.map { ChainCache(capacity: $0) }
  }

  func signingKey(leaf: [UInt8], intermediate: [UInt8], at time: Date)
    async throws(VerificationError) -> P256.Signing.PublicKey
  {
    let key = ChainCache.Key(leaf: leaf, intermediate: intermediate)
    if let cached = cache?.chain(for: key, at: time) {
      return cached.signingKey
    }
    let chain = try await validate(leafDER: leaf, intermediateDER: intermediate, at: time)
    cache?.insert(chain, for: key)
    return chain.signingKey
  }

  func validate(leafDER: [UInt8], intermediateDER: [UInt8], at time: Date)
    async throws(VerificationError) -> VerifiedChain
  {
    let leaf = try Self.parse(leafDER)
    let intermediate = try Self.parse(intermediateDER)
    guard let root = await walk(leaf: leaf, intermediate: intermediate, at: time) else {
      throw diagnosis(leaf: leaf, intermediate: intermediate, at: time)
    }
    return VerifiedChain(
      signingKey: try Self.signingKey(of: leaf),
      validFrom: max(leaf.notValidBefore, intermediate.notValidBefore, root.notValidBefore),
      validUntil: min(leaf.notValidAfter, intermediate.notValidAfter, root.notValidAfter))
  }

  /// The trusted root of the path swift-certificates' verifier builds and accepts; nil when
  /// it accepts none.
  private func walk(leaf: Certificate, intermediate: Certificate, at time: Date) async
    -> Certificate?
  {
    var verifier = Verifier(rootCertificates: CertificateStore(roots.certificates)) {
      RFC5280Policy(fixedExpiryValidationTime: time)
      AppleChainPolicy()
    }
    let result = await verifier.validate(
      leaf: leaf, intermediates: CertificateStore([intermediate]))
    guard case .validCertificate(let chain) = result, chain.count == 3, chain[1] == intermediate
    else { return nil }
    return chain[2]
  }

  /// Why the verifier refused the chain, in the order a reader would check it.
  private func diagnosis(leaf: Certificate, intermediate: Certificate, at time: Date)
    -> VerificationError
  {
    do {
      try Self.checkIssued(leaf, by: intermediate)
      let root = try anchor(for: intermediate)
      try Self.checkCertificateAuthority(intermediate)
      try Self.checkCriticalExtensionsUnderstood([leaf, intermediate])
      _ = try Self.signingKey(of: leaf)
      try Self.checkAppleMarkers(leaf: leaf, intermediate: intermediate)
      let certificates = [leaf, intermediate, root]
      guard certificates.allSatisfy({ $0.notValidBefore <= time && time <= $0.notValidAfter })
      else {
        return VerificationError(
          .certificateNotValidAtTime,
          "a certificate of the chain is not valid at the validation time")
      }
      return VerificationError(
        .invalidCertificateChain, "the chain does not satisfy RFC 5280 path validation")
    } catch {
      return error
    }
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
