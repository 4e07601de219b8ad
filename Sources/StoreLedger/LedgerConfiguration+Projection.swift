import Crypto
import Foundation
import StoreLedgerCore

extension LedgerConfiguration {
  /// Bumped whenever a projection rule in `StoreLedgerCore` changes what it answers: views
  /// stored by other rules are then no longer current and get projected again. v2: a
  /// reversed refund stays in force until the reversal. v4: entitlements and balances say
  /// which environment they come from. v5: seats and billing plans in subscriptions, seat
  /// claims and withdrawn consent in entitlements, commitment plans' retry and grace rules. v6: subscriptions say their storefront. v7: each view stores its
  /// account's status history by Apple's clock.
  static let projectionRules = "rules.v7"

  /// Names the rules, catalog and options that compute a stored view: a view stored under
  /// another fingerprint is not served, and the projector replaces it.
  var projectionFingerprint: String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    var input = Data(
      "\(Self.projectionRules)|retry:\(options.billingRetryIsEntitled)|sandbox:\(options.sandboxEntitles)|consent:\(options.rescindedConsentEndsEntitlements)|"
        .utf8)
    input.append((try? encoder.encode(catalog)) ?? Data())
    let digest = SHA256.hash(data: input)
    return digest.prefix(12).map { String(format: "%02x", $0) }.joined()
  }
}
