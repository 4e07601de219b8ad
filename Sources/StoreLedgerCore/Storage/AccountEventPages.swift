/// Every account's events in token order, a page of accounts at a time, from one snapshot of
/// the log: what a rebuild of the account views folds. Memory holds one page and what the caller
/// keeps.
public struct AccountEventPages {
  private let nextPage: () async throws -> [StoredAccountEvents]?

  /// - Parameter nextPage: the next page (fewer accounts at the end), nil after the last.
  public init(_ nextPage: @escaping () async throws -> [StoredAccountEvents]?) {
    self.nextPage = nextPage
  }

  /// The next page of accounts, nil after the last.
  public func next() async throws -> [StoredAccountEvents]? {
    try await nextPage()
  }
}
