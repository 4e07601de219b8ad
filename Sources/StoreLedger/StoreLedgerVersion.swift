/// This release's version: what `storeledger --version` prints and the README's dependency
/// line names (a test keeps the two the same).
public enum StoreLedgerVersion {
  public static let current = "0.9.0"
}
