import StoreLedgerCore

/// The body of an App Store Server API error.
public struct APIErrorResponse: Hashable, Sendable, Codable {
  public var errorCode: APIErrorCode?
  public var errorMessage: String?

  public init() {}

  public init(_ code: APIErrorCode, _ message: String) {
    errorCode = code
    errorMessage = message
  }

  /// A request Apple refuses with `code`, as a thrown error (the simulator's, and request
  /// validation shared with the client).
  public struct Failure: Error, Hashable, Sendable {
    public var code: APIErrorCode
    public var message: String

    public init(_ code: APIErrorCode, _ message: String) {
      self.code = code
      self.message = message
    }

    public var body: APIErrorResponse { APIErrorResponse(code, message) }

    /// The HTTP status Apple answers with: the code's first three digits.
    public var httpStatus: Int { Int(code.rawValue / 10_000) }
  }
}
