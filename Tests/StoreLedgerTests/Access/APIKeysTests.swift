import AppStoreVerification
import Foundation
import StoreLedgerCore
import StoreLedgerTestSupport
import Testing

@testable import StoreLedger

/// Named keys behave the same on PostgreSQL and in memory: a key grants its scopes, only
/// with its own secret; a name is taken while its key is in use; a revoked key grants
/// nothing; bad names and empty scopes are refused.
@Suite struct APIKeysTests {
  static let configuration = LedgerConfiguration(
    bundleId: "com.example.app", environments: [.sandbox],
    trustedRoots: LedgerTests.pki.trustedRoots,
    catalog: LedgerTests.catalog)

  @Test(arguments: StorageKind.allCases)
  func aKeyGrantsItsScopesUntilRevoked(_ storage: StorageKind) async throws {
    try await storage.withLedger(Self.configuration) { ledger in
      let keys = APIKeys(ledger: ledger)
      let (key, record) = try await keys.create(name: "dashboard", scopes: [.read])
      #expect(record.secretHash.count == 32 && !key.contains(record.name))
      let grant = try #require(try await keys.grant(for: key))
      #expect(grant.name == "dashboard" && grant.scopes == [.read] && grant.keyId == record.id)
      #expect(grant.allows(.read) && !grant.allows(.write))
      // Another secret with the same id, a truncated key, a stranger: nothing.
      let otherSecret = String(key.dropLast()) + (key.last == "A" ? "B" : "A")
      for wrong in [otherSecret, String(key.dropLast()), "slk_", "dashboard", ""] {
        #expect(try await keys.grant(for: wrong) == nil)
      }
      let taken = await #expect(throws: LedgerError.self) {
        try await keys.create(name: "dashboard", scopes: [.write])
      }
      #expect(taken?.code == .conflict)
      try await keys.revoke(name: "dashboard")
      #expect(try await keys.grant(for: key) == nil)
      #expect(try await keys.grant(id: record.id) == nil)
      let again = await #expect(throws: LedgerError.self) {
        try await keys.revoke(name: "dashboard")
      }
      #expect(again?.code == .notFound)
      let renewed = try await keys.create(name: "dashboard", scopes: [.read, .console])
      #expect(try await keys.grant(for: renewed.key)?.scopes == [.read, .console])
      let listed = try await keys.list()
      #expect(listed.map(\.name) == ["dashboard", "dashboard"])
      #expect(listed.filter { $0.revokedAt != nil }.count == 1)
    }
  }

  @Test func badNamesAndEmptyScopesAreRefused() async throws {
    try await StorageKind.memory.withLedger(Self.configuration) { ledger in
      for name in ["", "has space", String(repeating: "a", count: 65), "naïve"] {
        let error = await #expect(throws: LedgerError.self) {
          try await APIKeys(ledger: ledger).create(name: name, scopes: [.read])
        }
        #expect(error?.code == .invalidRequest)
      }
      let empty = await #expect(throws: LedgerError.self) {
        try await APIKeys(ledger: ledger).create(name: "ok", scopes: [])
      }
      #expect(empty?.code == .invalidRequest)
      let listed = try await APIKeys(ledger: ledger).list()
      #expect(listed.isEmpty)
      #expect(APIKeyScope.parse("read, write") == [.read, .write])
      #expect(APIKeyScope.parse("read,root") == nil)
      #expect(APIKeyScope.parse("") == nil)
    }
  }
}
