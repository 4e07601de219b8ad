/// Why an answer is what it is: a sentence a support agent can repeat, the rule and Apple's
/// constants behind it for engineers, and the events that decided it.
public struct Explanation: Hashable, Sendable, Encodable {
  /// What was asked about, e.g. `subscription 2000000123` or `entitlement pro`.
  public var subject: String
  /// The answer, e.g. `status 1 (active), entitled`; for an entitlement `active`, `inactive`
  /// or `never held`.
  public var answer: String
  /// The answer in plain words, with the dates and amounts that decided it, e.g. "Apple could
  /// not charge the customer for pro.monthly since 2026-04-17; …".
  public var sentence: String
  /// The rule's identifier and wording (projections/*.md), with Apple's constants.
  public var rule: String
  /// The deciding events, oldest signature first. Every one was signed (or issued) at or
  /// before the moment explained.
  public var events: [EventReference]
  /// Other events signed by then that carry the same deciding facts (Apple sends a
  /// transaction again with later notifications): without them the answer stands on these.
  public var corroborating: [EventReference]
  /// For an entitlement: the explanation of each source that grants (or granted) it.
  public var because: [Explanation]
  /// Deciding events Apple signed after the moment explained, about that moment (a history or
  /// status fetched later that showed what no notification had): the answer rests on them, so
  /// they are cited here, apart, and the sentence says so. Empty when everything deciding
  /// was signed by then.
  public var signedLater: [EventReference] = []

  public init(
    subject: String, answer: String, sentence: String? = nil, rule: String,
    events: [EventReference], corroborating: [EventReference] = [], because: [Explanation] = []
  ) {
    self.subject = subject
    self.answer = answer
    self.sentence = sentence ?? answer
    self.rule = rule
    self.events = Self.ordered(events)
    let cited = Set(self.events)
    self.corroborating = Self.ordered(corroborating.filter { !cited.contains($0) })
    self.because = because
  }

  /// Every event cited, deciding or corroborating, here and in `because`.
  public var allEvents: Set<EventReference> {
    because.reduce(into: Set(events + corroborating + signedLater)) {
      $0.formUnion($1.allEvents)
    }
  }

  static func ordered(_ events: [EventReference]) -> [EventReference] {
    Array(Set(events)).sorted {
      ($0.signedDate?.milliseconds ?? .min, $0.key ?? "", $0.eventType)
        < ($1.signedDate?.milliseconds ?? .min, $1.key ?? "", $1.eventType)
    }
  }
}
