import Foundation

/// The test cluster's TLS: `scripts/test` starts it with a certificate for the name
/// `localhost` signed by a CA of its own (``root``), and makes another CA that signed nothing
/// (``otherRoot``). Without them the TLS tests are skipped, except under `CI=true`.
public enum TestTLS {
  static let environment = ProcessInfo.processInfo.environment

  /// The CA that signed the cluster's certificate (a PEM file).
  public static let root: String? = environment["STORELEDGER_TEST_TLS_ROOT"]
  /// A CA that did not sign it.
  public static let otherRoot: String? = environment["STORELEDGER_TEST_TLS_OTHER_ROOT"]

  public static let shouldRun =
    (root != nil && TestDatabase.serverURL != nil) || environment["CI"] == "true"
}
