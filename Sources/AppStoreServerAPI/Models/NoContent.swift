/// The answer of a call whose success has no body (202 of Send Consumption Information, 200
/// of Set App Account Token): any body is ignored.
public struct NoContent: Hashable, Sendable, Codable {
  public init() {}
}
