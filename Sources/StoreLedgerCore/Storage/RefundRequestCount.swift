/// How many refund requests are in one state, answered late or not, with one decision of
/// Apple's (nil before any).
public struct RefundRequestCount: Sendable, Hashable {
  package var state: String
  package var late: Bool
  package var decision: String?
  package var count: Int

  package init(state: String, late: Bool, decision: String?, count: Int) {
    self.state = state
    self.late = late
    self.decision = decision
    self.count = count
  }
}
