/// What checking the log against its signed checkpoints found: how many checkpoints and rows
/// were checked, and every problem (kind `checkpoint`), the first mismatching row named.
public struct CheckpointAuditReport: Sendable, Hashable, Codable {
  /// Checkpoints whose signature verified.
  public var checkpoints = 0
  /// The newest checkpoint's tree size: the rows the checkpoints vouch for.
  public var newestTreeSize = 0
  /// Rows of the log compared with the published leaves.
  public var rowsCompared = 0
  /// Rows appended after the newest checkpoint (not covered yet; not a problem).
  public var rowsAfterNewest = 0
  public var problems: [AuditReport.Problem] = []

  public var isConsistent: Bool { problems.isEmpty }

  public init() {}
}
