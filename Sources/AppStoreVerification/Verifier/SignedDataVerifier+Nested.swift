import StoreLedgerCore

extension SignedDataVerifier {
  /// Decodes the JWS nested in a notification at the notification's own trust level and
  /// checks that each belongs to the notification's environment and bundle.
  func nested<Trust: TrustLevel>(in outer: SignedData<ResponseBodyV2DecodedPayload, Trust>)
    async throws(VerificationError) -> SignedNotification<Trust>
  {
    let body = outer.payload
    var transaction: SignedData<JWSTransactionDecodedPayload, Trust>?
    if let jws = body.data?.signedTransactionInfo {
      transaction = try await open(jws, as: JWSTransactionDecodedPayload.self, trust: Trust.self)
    }
    var renewalInfo: SignedData<JWSRenewalInfoDecodedPayload, Trust>?
    if let jws = body.data?.signedRenewalInfo {
      renewalInfo = try await open(jws, as: JWSRenewalInfoDecodedPayload.self, trust: Trust.self)
    }
    var appTransaction: SignedData<JWSAppTransactionDecodedPayload, Trust>?
    if let jws = body.appData?.signedAppTransactionInfo {
      appTransaction = try await open(
        jws, as: JWSAppTransactionDecodedPayload.self, trust: Trust.self)
    }
    for claims in [
      transaction?.payload.identityClaims, renewalInfo?.payload.identityClaims,
      appTransaction?.payload.identityClaims,
    ].compactMap({ $0 }) {
      try Self.checkNested(claims, belongsTo: body)
    }
    return SignedNotification(
      notification: outer, transaction: transaction, renewalInfo: renewalInfo,
      appTransaction: appTransaction)
  }

  /// Verifies, or for an unverified notification decodes, one nested JWS.
  private func open<Payload: AppStoreSignedPayload, Trust: TrustLevel>(
    _ jws: String, as type: Payload.Type, trust: Trust.Type
  ) async throws(VerificationError) -> SignedData<Payload, Trust> {
    if Trust.self == AppleSigned.self {
      return try await verify(jws, as: type).retagged()
    }
    return try decodeUnverified(jws, as: type).retagged()
  }

  private static func checkNested(
    _ claims: IdentityClaims, belongsTo notification: ResponseBodyV2DecodedPayload
  ) throws(VerificationError) {
    guard claims.environment == notification.environment else {
      throw VerificationError(
        .environmentMismatch, "a nested JWS belongs to another environment than its notification")
    }
    if case .carried(let bundleId) = claims.bundleId, bundleId != notification.bundleId {
      throw VerificationError(
        .bundleIdMismatch, "a nested JWS belongs to another bundle than its notification")
    }
  }
}
