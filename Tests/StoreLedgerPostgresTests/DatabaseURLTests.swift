import StoreLedgerCore
import StoreLedgerPostgres
import Testing

/// Database URLs as libpq writes them and `pg_autoctl show uri` prints them.
@Suite struct DatabaseURLTests {
  @Test func aFormationURLNamesEveryHostInOrder() throws {
    let url = try DatabaseURL(
      "postgres://writer:p%40ss@10.0.0.5:5433,node2.internal,[::1]:6000/ledger"
        + "?target_session_attrs=read-write&sslmode=verify-full&sslrootcert=/etc/ca.pem"
        + "&application_name=storeledger")
    #expect(url.hosts.map(\.description) == ["10.0.0.5:5433", "node2.internal:5432", "[::1]:6000"])
    #expect(url.username == "writer")
    #expect(url.password == "p@ss")
    #expect(url.database == "ledger")
    #expect(url.targetSessionAttributes == .readWrite)
    #expect(url.sslMode == .verifyFull)
    #expect(url.sslRootCertificate == "/etc/ca.pem")
    #expect(url.address == "10.0.0.5:5433,node2.internal:5432,[::1]:6000/ledger")
    #expect(!url.description.contains("p@ss") && !url.description.contains("p%40ss"))
    #expect(try url.checkedForWrites() == url)
  }

  @Test func oneHostStaysAsItWas() throws {
    let url = try DatabaseURL("postgresql://postgres@127.0.0.1/app")
    #expect(url.hosts == [DatabaseURL.Host(name: "127.0.0.1", port: 5432)])
    #expect(url.host == "127.0.0.1" && url.port == 5432)
    #expect(url.targetSessionAttributes == .any && url.sslMode == nil)
    #expect(url.isLoopback)
    #expect(url.description == "postgres://postgres@127.0.0.1:5432/app")
  }

  /// What a URL says is shown in full but for its password, and reads back as the same URL.
  @Test func theDescriptionKeepsEveryParameterButThePassword() throws {
    let url = try DatabaseURL(
      "postgres://writer:secret@db1:5433,db2:5433/ledger?target_session_attrs=read-write"
        + "&sslmode=verify-full&sslrootcert=/etc/ssl/a%26b%20ca.pem")
    #expect(
      url.description
        == "postgres://writer@db1:5433,db2:5433/ledger?target_session_attrs=read-write"
        + "&sslmode=verify-full&sslrootcert=/etc/ssl/a%26b%20ca.pem")
    var read = try DatabaseURL(url.description)
    read.password = "secret"
    #expect(read == url)
  }

  /// As libpq: a URL without a user signs in as PGUSER (pg_autoctl's URLs name none).
  @Test func aURLWithoutAUserSignsInAsPGUSER() throws {
    let url = try DatabaseURL(
      "postgres://127.0.0.1:5001,127.0.0.1:5002/ledger?target_session_attrs=read-write",
      environment: ["PGUSER": "ledger_owner"])
    #expect(url.username == "ledger_owner")
    #expect(url.hosts.count == 2)
  }

  @Test(arguments: [
    (
      "postgres://u@h1:5432,h2:5432/db?target_session_attrs=primary-ish",
      "target_session_attrs is one of"
    ),
    ("postgres://u@h1:5432,h2:5432/db?sslmode=strict", "sslmode is one of"),
    ("postgres://u@h1:5432,:5433/db", "names a host before each port"),
    ("postgres://u@h1:99999/db", "is not a number from 1 to 65535"),
    ("mysql://u@h1/db", "postgres://user:password@host:5432/database"),
  ])
  func badURLsSayWhatIsWrong(_ text: String, _ words: String) {
    #expect {
      _ = try DatabaseURL(text, environment: [:])
    } throws: { error in
      (error as? EventStoreError)?.code == .invalidConfiguration
        && (error as? EventStoreError)?.message.contains(words) == true
    }
  }

  /// A URL asking for a standby cannot be the ledger's, which writes.
  @Test func aStandbyURLIsNotTheLedgers() throws {
    let url = try DatabaseURL("postgres://u@h1,h2/db?target_session_attrs=standby")
    #expect {
      _ = try url.checkedForWrites()
    } throws: { error in
      (error as? EventStoreError)?.message.contains("--read-database-url") == true
    }
  }

  /// STORELEDGER_READ_DATABASE_URLS: a comma starts a new URL only before a scheme.
  @Test func aListKeepsEachFormationURLWhole() {
    #expect(
      DatabaseURL.list(
        "postgres://u@r1:5432,r2:5432/db?target_session_attrs=standby, postgres://u@r3/db")
        == ["postgres://u@r1:5432,r2:5432/db?target_session_attrs=standby", "postgres://u@r3/db"])
  }
}
