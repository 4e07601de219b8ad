/// The protected header of an App Store JWS, with its certificate chain decoded to DER.
struct JWSHeader: Sendable {
  /// The only algorithm App Store data is signed with.
  static let appStoreAlgorithm = "ES256"

  enum CertificateChain: Sendable {
    case absent
    case notBase64
    case der([[UInt8]])
  }

  let alg: String?
  /// `x5c` decoded from standard base64.
  let chain: CertificateChain

  private struct Fields: Decodable {
    var alg: String?
    var x5c: [String]?
  }

  /// Parses the decoded header JSON.
  init(json: [UInt8]) throws(VerificationError) {
    let fields: Fields
    do {
      fields = try JSONDecoding.decoder.decode(Fields.self, from: json)
    } catch {
      throw VerificationError(
        .malformedJWS, "the JWS header is not a JSON object of the JOSE shape")
    }
    alg = fields.alg
    chain = Self.decodeChain(fields.x5c)
  }

  private static func decodeChain(_ x5c: [String]?) -> CertificateChain {
    guard let x5c else { return .absent }
    var certificates: [[UInt8]] = []
    for entry in x5c {
      guard let der = Base64Bytes.decode(entry, alphabet: .standardPadded) else {
        return .notBase64
      }
      certificates.append(der)
    }
    return .der(certificates)
  }

  /// The leaf and intermediate of an App Store chain: exactly three certificates.
  func leafAndIntermediate() throws(VerificationError) -> (leaf: [UInt8], intermediate: [UInt8]) {
    let certificates: [[UInt8]]
    switch chain {
    case .absent:
      throw VerificationError(.malformedJWS, "the JWS header has no x5c certificate chain")
    case .notBase64:
      throw VerificationError(.invalidCertificateChain, "an x5c entry is not standard base64")
    case .der(let der): certificates = der
    }
    guard certificates.count == 3 else {
      throw VerificationError(.invalidCertificateChain, "x5c must hold exactly three certificates")
    }
    return (certificates[0], certificates[1])
  }
}
