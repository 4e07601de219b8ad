import SwiftASN1
import X509

/// Apple's rules for an App Store signing chain beyond RFC 5280, as a policy of
/// swift-certificates' `Verifier`: exactly leaf, intermediate and root; the intermediate
/// carries the WWDR marker 1.2.840.113635.100.6.2.1 and the leaf the receipt-signing marker
/// 1.2.840.113635.100.6.11.1; a leaf that states its key usage may sign data.
package struct AppleChainPolicy: VerifierPolicy {
  package let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = []

  package init() {}

  package func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async
    -> PolicyEvaluationResult
  {
    guard chain.count == 3 else {
      return .failsToMeetPolicy(reason: "an App Store chain is a leaf, an intermediate and a root")
    }
    guard chain[1].extensions[oid: AppleOID.wwdrIntermediate] != nil,
      chain[0].extensions[oid: AppleOID.receiptSigningLeaf] != nil
    else {
      return .failsToMeetPolicy(reason: "a certificate lacks its Apple marker")
    }
    if let usage = try? chain[0].extensions.keyUsage, !usage.digitalSignature {
      return .failsToMeetPolicy(reason: "the leaf may not sign data")
    }
    return .meetsPolicy
  }
}
