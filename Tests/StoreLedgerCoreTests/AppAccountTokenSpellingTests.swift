import StoreLedgerCore
import Testing

/// The spellings of a token people paste into a search, read as the token; anything else is
/// not a token.
struct AppAccountTokenSpellingTests {
  static let token = "7e3fb20b-4cdb-47cc-936d-99d65f608138"

  @Test(arguments: [
    token, token.uppercased(), "7e3fb20b4cdb47cc936d99d65f608138",
    "7E3FB20B4CDB47CC936D99D65F608138", "{7e3fb20b-4cdb-47cc-936d-99d65f608138}",
    "  7e3fb20b-4cdb-47cc-936d-99d65f608138\n", "urn:uuid:7e3fb20b-4cdb-47cc-936d-99d65f608138",
    "URN:UUID:7E3FB20B-4CDB-47CC-936D-99D65F608138", "\"7e3fb20b-4cdb-47cc-936d-99d65f608138\"",
    "7e3fb20b-4cdb47cc-936d99d65f608138",
  ])
  func aTokenInAnySpellingIsTheToken(_ spelling: String) {
    #expect(AppAccountToken.fromAnySpelling(spelling) == Self.token)
  }

  @Test(arguments: [
    "", "7e3fb20b", "7e3fb20b-4cdb-47cc-936d-99d65f60813", "7e3fb20b-4cdb-47cc-936d-99d65f6081388",
    "7e3fb20b-4cdb-47cc-936d-99d65f60813g", "2000000123456789", "{7e3fb20b4cdb47cc936d99d65f608138",
    "ORDER12345",
  ])
  func anythingElseIsNotAToken(_ text: String) {
    #expect(AppAccountToken.fromAnySpelling(text) == nil)
  }
}
