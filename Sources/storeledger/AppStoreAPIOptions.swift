import AppStoreServerAPI
import AppStoreVerification
import ArgumentParser
import Foundation
import Logging
import StoreLedger
import StoreLedgerCore

/// Where and as whom to call the App Store Server API; each flag falls back to its
/// environment variable.
struct AppStoreAPIOptions: ParsableArguments {
  @Option(
    name: .customLong("api-url"),
    help: "production, sandbox, or a base URL such as a simulator's (default: production).")
  var apiURL: String?
  @Option(name: .customLong("key-id"), help: "The In-App Purchase key's id.") var keyId: String?
  @Option(name: .customLong("issuer-id"), help: "The issuer id of the key.") var issuerId: String?
  @Option(name: .customLong("p8"), help: "The .p8 file of the key.") var p8: String?

  /// The client's configuration; its data is verified like the ledger's (same roots and app),
  /// for the environment of the URL, at the current time.
  func client(ledger: LedgerConfiguration, environment: [String: String]) throws
    -> (AppStoreServerAPIConfiguration, VerifierConfiguration)
  {
    func setting(_ flag: String?, _ variable: String) -> String? {
      LedgerOptions.setting(flag, variable, environment)
    }
    guard let keyId = setting(keyId, "STORELEDGER_API_KEY_ID"),
      let issuerId = setting(issuerId, "STORELEDGER_API_ISSUER_ID"),
      let p8 = setting(p8, "STORELEDGER_API_P8")
    else {
      throw ValidationError(
        "give --key-id, --issuer-id and --p8 (or STORELEDGER_API_KEY_ID, _ISSUER_ID, _P8)")
    }
    let pem = String(decoding: try InputReader.bytes(p8), as: UTF8.self)
    let key: APIKey
    do {
      key = try APIKey(keyId: keyId, issuerId: issuerId, bundleId: ledger.bundleId, p8: pem)
    } catch { throw ValidationError("\(p8): \(error.message)") }
    let (url, appEnvironment) = Self.baseURL(setting(apiURL, "STORELEDGER_API_URL") ?? "production")
    return (
      AppStoreServerAPIConfiguration(baseURL: url, key: key),
      VerifierConfiguration(
        trustedRoots: ledger.trustedRoots, bundleId: ledger.bundleId,
        appAppleId: ledger.appAppleId, environment: appEnvironment,
        // The API's answers are fresh: their chains are judged now (online), not at signedDate.
        validationTime: .now)
    )
  }

  /// A client whose answers are verified like the ledger's data, and the environment its
  /// URL serves (nil for a custom URL).
  /// With `--apps`, the app's own credentials stand in for absent flags and variables.
  func client(for ledger: Ledger, options: LedgerOptions, logger: Logger) throws
    -> (AppStoreServerAPIClient, AppStoreEnvironment?)
  {
    let (configuration, verification) = try client(
      ledger: ledger.configuration,
      environment: try options.apiEnvironment(ProcessInfo.processInfo.environment))
    let verifier = try SignedDataVerifier(configuration: verification)
    return (
      AppStoreServerAPIClient(configuration: configuration, verifier: verifier, logger: logger),
      verification.environment
    )
  }

  static func baseURL(_ text: String) -> (String, AppStoreEnvironment?) {
    switch text.lowercased() {
    case "production": (AppStoreServerAPIConfiguration.production, .production)
    case "sandbox": (AppStoreServerAPIConfiguration.sandbox, .sandbox)
    default: (text, nil)
    }
  }
}
