/// The body of an App Store Server API error.
public struct APIErrorResponse: Hashable, Sendable, Codable {
  public var errorCode: APIErrorCode?
  public var errorMessage: String?

  public init() {}
}
