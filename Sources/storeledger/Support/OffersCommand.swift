import AppStoreServerAPI
import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

/// `storeledger offers TOKEN`: offer eligibility, and promotional offer signatures.
struct OffersCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "offers",
    abstract: "What offers an account may still get; sign a promotional offer for it.",
    discussion: """
      Eligibility comes from what Apple signed into the account's purchases: an introductory \
      offer in each subscription group where it never had one, the win-back offers Apple's \
      newest renewal info names, and what it paid under which offers before.

      Examples:
        storeledger offers 7e3c…  --database-url …
        storeledger offers 7e3c… --sign SPRING50 --product com.example.pro.monthly \\
          --key-id 2X9R4HXF34 --issuer-id 57246542-… --p8 key.p8
        storeledger offers 7e3c… --sign SPRING50 \\
          --product com.example.pro.monthly --jws …
        storeledger offers 7e3c… --intro-eligibility \\
          --product com.example.pro.monthly …
      """)

  @OptionGroup var ledger: LedgerOptions
  @OptionGroup var api: AppStoreAPIOptions
  @Argument(help: "The account's appAccountToken.") var appAccountToken: String
  @Option(help: "Sign this promotional offer (its offer identifier).") var sign: String?
  @Option(help: "The subscription product of the offer to sign.") var product: String?
  @Flag(help: "With --sign: Apple's JWS form of the signature (StoreKit 2).") var jws = false
  @Flag(
    help:
      "Sign the account's introductory offer eligibility for --product (a JWS, from the eligibility the ledger computes)."
  )
  var introEligibility = false
  @Option(help: "With --intro-eligibility: the product's subscription group, if never bought.")
  var group: String?
  @Option(help: "The customer's transaction (or appTransactionId) the JWS names.")
  var transactionId: String?
  @Flag(help: "Print JSON.") var json = false

  func validate() throws {
    if sign != nil, product == nil { throw ValidationError("--sign needs --product") }
    if introEligibility, product == nil {
      throw ValidationError("--intro-eligibility needs --product")
    }
    if introEligibility, sign != nil {
      throw ValidationError("--sign and --intro-eligibility sign different things; give one")
    }
  }

  func run() async throws {
    let options = self
    if introEligibility || (jws && sign != nil), let product {
      let signature = try await ledger.withLedger("storeledger.offers") { ledger, _ in
        let (configuration, _) = try options.api.client(
          ledger: ledger.configuration,
          environment: try options.ledger.apiEnvironment(ProcessInfo.processInfo.environment))
        if let offer = options.sign {
          return try await AppleActions(ledger: ledger).signPromotionalOfferJWS(
            for: options.appAccountToken, productId: product, offerIdentifier: offer,
            transactionId: options.transactionId, key: configuration.key)
        }
        return try await AppleActions(ledger: ledger).signIntroductoryOfferEligibility(
          for: options.appAccountToken, productId: product,
          subscriptionGroupIdentifier: options.group, transactionId: options.transactionId,
          key: configuration.key)
      }
      say(try CommandJSON.string(signature))
      return
    }
    if let offer = sign, let product {
      let signature = try await ledger.withLedger("storeledger.offers") { ledger, _ in
        let (configuration, _) = try options.api.client(
          ledger: ledger.configuration,
          environment: try options.ledger.apiEnvironment(ProcessInfo.processInfo.environment))
        return try await AppleActions(ledger: ledger).signPromotionalOffer(
          for: options.appAccountToken, productId: product, offerIdentifier: offer,
          key: configuration.key)
      }
      say(try CommandJSON.string(signature))
      return
    }
    let eligibility = try await ledger.withLedger("storeledger.offers") { ledger, _ in
      try await AppleActions(ledger: ledger).offerEligibility(for: options.appAccountToken)
    }
    if json {
      say(try CommandJSON.string(eligibility))
      return
    }
    var groups = TextTable(
      title: "subscription groups",
      header: ["group", "introductory offer", "win-back offers Apple names"])
    for group in eligibility.groups {
      groups.rows.append([
        group.subscriptionGroupIdentifier,
        group.introductoryOfferEligible
          ? "eligible" : "used in " + group.introductoryOfferUsedIn.joined(separator: ", "),
        group.winBackOfferIds.isEmpty ? "-" : group.winBackOfferIds.joined(separator: ", "),
      ])
    }
    var purchases = TextTable(
      title: "purchases", header: ["transaction", "product", "price", "offer"])
    for purchase in eligibility.purchases {
      let price = purchase.price.map { "\(Double($0) / 1000) \(purchase.currency ?? "")" } ?? "-"
      let offer =
        purchase.offerType.map {
          "type \($0.rawValue) \(purchase.offerIdentifier ?? "") "
            + (purchase.offerDiscountType?.rawValue ?? "")
        } ?? "-"
      purchases.rows.append([purchase.transactionId, purchase.productId ?? "-", price, offer])
    }
    say(groups.render() + purchases.render())
  }
}
