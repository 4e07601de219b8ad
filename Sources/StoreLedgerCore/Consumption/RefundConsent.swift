import Foundation

/// The customer's answer, collected by the app, to sharing consumption data with Apple when
/// they ask for a refund: granted or withdrawn, when the app collected it and how. Recorded as
/// an event of its own stream (`consent:<token>`); it folds nothing and decides only what the
/// refund-request worker may send.
public struct RefundConsent: Hashable, Sendable, Codable {
  public var appAccountToken: String
  public var consented: Bool
  /// When the app collected the answer (Unix milliseconds).
  public var collectedAt: Timestamp
  /// How it was collected (the app's words: a dialog's version, a settings screen), if said.
  public var method: String?

  public init(appAccountToken: String, consented: Bool, collectedAt: Timestamp, method: String?) {
    self.appAccountToken = appAccountToken
    self.consented = consented
    self.collectedAt = collectedAt
    self.method = method
  }

  public static func stream(of appAccountToken: String) -> String {
    "consent:" + AppAccountToken.normalized(appAccountToken)
  }

  /// The answer in force at `time`: the latest collected at or before it.
  public static func inForce(_ answers: [RefundConsent], at time: Timestamp) -> RefundConsent? {
    answers.filter { $0.collectedAt <= time }.max {
      $0.collectedAt.milliseconds < $1.collectedAt.milliseconds
    }
  }
}
