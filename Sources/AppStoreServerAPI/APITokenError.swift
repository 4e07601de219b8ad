/// Why a bearer token for the App Store Server API was refused. `code` is stable; the
/// message never contains the token or key material.
public struct APITokenError: Error, Sendable, Hashable, CustomStringConvertible {
  public struct Code: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Not three base64url segments, or a header or claims that are not JSON.
    public static let malformed = Code(rawValue: "malformed")
    /// Not ES256, or a key id nobody issued.
    public static let unknownKey = Code(rawValue: "unknown_key")
    public static let badSignature = Code(rawValue: "bad_signature")
    /// `aud`, `bid` or `iss` is not what the server expects.
    public static let wrongClaims = Code(rawValue: "wrong_claims")
    /// Expired, not valid yet, or valid for more than 60 minutes.
    public static let badLifetime = Code(rawValue: "bad_lifetime")
    /// The private key could not be read.
    public static let invalidKey = Code(rawValue: "invalid_key")
  }

  public let code: Code
  public let message: String

  public init(_ code: Code, _ message: String) {
    self.code = code
    self.message = message
  }

  public var description: String { "\(code.rawValue): \(message)" }
}
