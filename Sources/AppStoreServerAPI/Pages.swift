/// Pages of a paged App Store Server API answer (history, refunds), fetched one by one as
/// they are iterated: the first without a revision, each next with the revision of the one
/// before, until `hasMore` is false.
public struct Pages<Page: Sendable>: AsyncSequence, Sendable {
  public typealias Element = Page
  let fetch:
    @Sendable (_ revision: String?) async throws -> (page: Page, revision: String?, hasMore: Bool)
  let firstRevision: String?

  public func makeAsyncIterator() -> Iterator {
    Iterator(fetch: fetch, revision: firstRevision)
  }

  public struct Iterator: AsyncIteratorProtocol {
    let fetch: @Sendable (String?) async throws -> (page: Page, revision: String?, hasMore: Bool)
    var revision: String?
    var finished = false

    public mutating func next() async throws -> Page? {
      guard !finished else { return nil }
      let (page, next, hasMore) = try await fetch(revision)
      revision = next ?? revision
      finished = !hasMore
      return page
    }
  }
}
