import StoreLedgerCore

/// Signed data whose payload has been read but not verified: what a caller may look at to
/// choose a verifier (the environment it claims, its kind), which then checks it without
/// reading it again (`SignedDataVerifier.verify(_:)`). Nothing in
/// it is to be trusted until a verifier returns it.
public struct UnverifiedJWS<Payload: AppStoreSignedPayload>: Sendable {
  let token: CompactJWS
  let compact: String
  /// What the payload claims; unverified.
  public let claims: Payload

  public init(_ jws: String, as type: Payload.Type = Payload.self) throws(VerificationError) {
    token = try CompactJWS(jws)
    compact = jws
    claims = try SignedDataVerifier.decodePayload(type, from: token)
  }
}
