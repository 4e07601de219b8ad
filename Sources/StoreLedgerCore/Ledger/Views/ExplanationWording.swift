/// The plain-language sentences of explanations: what a support agent can read to a customer.
/// Days are ISO dates in UTC; the rule codes and Apple's constants stay in `Explanation.rule`.
enum ExplanationWording {
  /// `2026-04-17`, in UTC: the date of the timestamp's ISO 8601 form.
  static func day(_ time: Timestamp?) -> String {
    time.map { String($0.description.prefix(10)) } ?? "an unknown day"
  }

  /// A subscription's status at `time`, from the rule that decided it.
  static func subscription(
    _ result: SubscriptionChain.Evaluation, renewal: RenewalRecord?, entitled: Bool,
    retryLimit: Int64
  ) -> String {
    let product = result.productId ?? "the subscription"
    let current = result.current.facts
    switch result.rule {
    case .appleReported:
      let until =
        result.evidenceEnds.map { $0.milliseconds < InstantText.latest }
          == true ? "until \(day(result.evidenceEnds)) or its next word" : "until its next word"
      return
        "The App Store reported \(product) as \(result.status.name) on \(day(result.reported?.signedDate)); "
        + "no purchase in the log explains it, so Apple's word stands \(until)"
    case .revoked:
      let revocation = result.current.revocation
      return
        "Apple \(refunded(revocation?.reason, type: revocation?.type)) \(product) on \(day(revocation?.date)); access ended then"
    case .active:
      let renews: String
      switch renewal?.autoRenewStatus {
      case .some(.on): renews = "; it renews then unless the customer cancels"
      case .some(.off): renews = "; auto-renew is off, so it ends then"
      default: renews = ""
      }
      return "\(product) is paid through \(day(current.expiresDate))\(renews)"
    case .gracePeriod:
      return
        "Apple could not charge the customer for \(product) since \(day(current.expiresDate)); "
        + "access continues in the billing grace period until \(day(result.renewal?.gracePeriodExpiresDate)) while Apple retries"
    case .billingRetry:
      let until = current.expiresDate.map { Timestamp(milliseconds: $0.milliseconds + retryLimit) }
      let access =
        entitled
        ? "access continues (the policy entitles billing retry)"
        : "access resumes if a payment succeeds"
      return
        "Apple could not charge the customer for \(product) since \(day(current.expiresDate)); "
        + "Apple retries until \(day(until)); \(access)"
    case .expired:
      return "\(product) expired on \(day(current.expiresDate))\(why(result.renewal))"
    }
  }

  private static func why(_ renewal: RenewalRecord?) -> String {
    switch renewal?.facts.expirationIntent {
    case .some(.customerCancelled): ": the customer cancelled"
    case .some(.billingError): ": Apple could not charge the customer and stopped retrying"
    case .some(.priceIncreaseNotConsented): ": the customer did not agree to a price increase"
    case .some(.productNotAvailable): ": the product was not available to renew"
    case .some(let intent): ": Apple gave expiration intent \(intent.rawValue)"
    case .none: ""
    }
  }

  /// "refunded" or why else Apple took it back.
  static func refunded(_ reason: RevocationReason?, type: RevocationType?) -> String {
    if type == .familyRevoke { return "ended family sharing of" }
    switch reason {
    case .some(.appIssue): return "refunded (an issue in the app)"
    default: return "refunded"
    }
  }

  /// A one-time purchase: bought, and refunded or not, by `time`.
  static func purchase(_ record: TransactionRecord, entitled: Bool, at time: Timestamp) -> String {
    let product = record.facts.productId ?? "the purchase"
    var sentence = "\(product) was bought on \(day(record.facts.purchaseDate))"
    if let revocation = record.revocation, let date = revocation.date, date <= time {
      sentence +=
        "; Apple \(refunded(revocation.reason, type: revocation.type)) it on \(day(date))"
      if let standing = record.standingSince, standing >= date, standing <= time {
        sentence += " and reversed that on \(day(standing))"
      }
    } else if let expires = record.facts.expiresDate {
      sentence +=
        expires > time ? " and lasts until \(day(expires))" : " and ended on \(day(expires))"
    } else {
      sentence += " and has not been refunded"
    }
    return sentence + (entitled ? "" : "; no access from it now")
  }

  /// A consumable balance with the purchases, refunds and uses that make it up.
  static func balance(_ balance: ConsumableView, purchases: Int, debits: Int) -> String {
    let bought = purchases == 1 ? "1 purchase" : "\(purchases) purchases"
    let used = debits == 1 ? "1 use" : "\(debits) uses"
    return
      "\(balance.balance) \(balance.productId) left: \(balance.purchased) bought in \(bought), "
      + "\(balance.refunded) refunded, \(balance.debited) used in \(used)"
  }
}
