/// The protected header of an App Store JWS.
struct JWSHeader: Decodable {
  var alg: String?
  /// Standard base64 DER certificates: leaf, intermediate, root.
  var x5c: [String]?

  /// The only algorithm App Store data is signed with.
  static let appStoreAlgorithm = "ES256"
}
