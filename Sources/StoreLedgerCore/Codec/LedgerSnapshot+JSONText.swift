/// The views as JSON text, member for member what their `Encodable` writes (the tests compare
/// both), for read models written on every projection.
extension SubscriptionView {
  public func write(to json: inout JSONTextWriter) {
    json.object { json in
      json.member("originalTransactionId", originalTransactionId)
      json.member("productId", productId)
      json.member("subscriptionGroupIdentifier", subscriptionGroupIdentifier)
      json.member("appAccountToken", appAccountToken)
      json.member("inAppOwnershipType", inAppOwnershipType)
      json.member("status", status)
      json.member("entitled", entitled)
      json.member("expiresDate", expiresDate)
      json.member("gracePeriodExpiresDate", gracePeriodExpiresDate)
      json.member("autoRenewStatus", autoRenewStatus)
      json.member("autoRenewProductId", autoRenewProductId)
      json.member("expirationIntent", expirationIntent)
      json.member("priceIncreaseStatus", priceIncreaseStatus)
      json.member("renewalDate", renewalDate)
      json.member("isInBillingRetryPeriod", isInBillingRetryPeriod)
      json.member("environment", environment)
      json.member("price", price)
      json.member("currency", currency)
      json.member("offerType", offerType)
      json.member("offerIdentifier", offerIdentifier)
      json.member("offerDiscountType", offerDiscountType)
      json.member("offerPeriod", offerPeriod)
      json.member("renewalPrice", renewalPrice)
      json.member("renewalCurrency", renewalCurrency)
      json.member("storefront", storefront)
      json.member("transactionId", transactionId)
      json.member("rule", rule)
      json.member("appleStatus", appleStatus)
      if let billingPlan {
        json.member("billingPlan") { billingPlan.write(to: &$0) }
      } else {
        json.member("billingPlan", nil as String?)
      }
      if let seats {
        json.member("seats") { seats.write(to: &$0) }
      } else {
        json.member("seats", nil as String?)
      }
    }
  }
}

extension BillingPlanView {
  public func write(to json: inout JSONTextWriter) {
    json.object { json in
      json.member("type", type)
      json.member("billingPeriodNumber", billingPeriodNumber)
      json.member("totalBillingPeriods", totalBillingPeriods)
      json.member("commitmentExpiresDate", commitmentExpiresDate)
      json.member("commitmentPrice", commitmentPrice)
      json.member("commitmentWillRenew", commitmentWillRenew)
      json.member("commitmentRenewalProductId", commitmentRenewalProductId)
      json.member("commitmentRenewalBillingPlanType", commitmentRenewalBillingPlanType)
      json.member("commitmentRenewalDate", commitmentRenewalDate)
      json.member("cancelledInsideCommitment", cancelledInsideCommitment)
    }
  }
}

extension SeatsView {
  public func write(to json: inout JSONTextWriter) {
    json.object { json in
      json.member("invitationManagement", invitationManagement)
      json.member("total", total)
      json.member("revoked", revoked)
      json.member("claimed", claimed)
      json.member("available", available)
      json.member("renewalQuantity", renewalQuantity)
      json.member("overClaimed") { $0.strings(overClaimed) }
      json.member("transactionIds") { $0.strings(transactionIds) }
    }
  }
}

extension ConsumableView {
  public func write(to json: inout JSONTextWriter) {
    json.object { json in
      json.member("appAccountToken", appAccountToken)
      json.member("productId", productId)
      json.member("purchased", purchased)
      json.member("refunded", refunded)
      json.member("debited", debited)
      json.member("balance", balance)
      json.member("environments") { $0.strings(environments) }
    }
  }
}

extension EntitlementView {
  public func write(to json: inout JSONTextWriter) {
    json.object { json in
      json.member("appAccountToken", appAccountToken)
      json.member("entitlement", entitlement)
      json.member("active", active)
      json.member("expiresDate", expiresDate)
      json.member("source", source)
      json.member("rule", rule)
      json.member("environment", environment)
    }
  }
}
