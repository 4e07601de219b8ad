/// Why an answer is what it is: the rule that applied and the events that decided it.
public struct Explanation: Hashable, Sendable, Encodable {
  /// What was asked about, e.g. `subscription 2000000123` or `entitlement pro`.
  public var subject: String
  /// The answer, e.g. `status 1 (active), entitled`.
  public var answer: String
  /// The rule's identifier and wording (projections/*.md).
  public var rule: String
  /// The deciding events, oldest signature first.
  public var events: [EventReference]
  /// For an entitlement: the explanation of each source that grants (or granted) it.
  public var because: [Explanation]

  public init(
    subject: String, answer: String, rule: String, events: [EventReference],
    because: [Explanation] = []
  ) {
    self.subject = subject
    self.answer = answer
    self.rule = rule
    self.events = Array(Set(events)).sorted {
      ($0.signedDate?.milliseconds ?? .min, $0.key ?? "", $0.eventType)
        < ($1.signedDate?.milliseconds ?? .min, $1.key ?? "", $1.eventType)
    }
    self.because = because
  }
}
