import Testing

@testable import StoreLedgerPostgres

@Suite struct SQLScriptTests {
  @Test func splitsOnSemicolonsOutsideQuotesCommentsAndBodies() {
    let script = """
      -- a comment; with a semicolon
      CREATE TABLE a (x text DEFAULT 'a;b', "we;ird" int);
      /* block; comment */
      DO $$ BEGIN PERFORM 1; END $$;
      CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $body$ SELECT 1; $body$;
      SELECT $1;
      SELECT 'it''s; fine';
      -- trailing comment only
      """
    let statements = SQLScript.statements(script)
    #expect(statements.count == 5)
    #expect(statements[0].hasSuffix(#"CREATE TABLE a (x text DEFAULT 'a;b', "we;ird" int)"#))
    #expect(statements[1].hasSuffix("DO $$ BEGIN PERFORM 1; END $$"))
    #expect(
      statements[2] == "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $body$ SELECT 1; $body$")
    #expect(statements[3] == "SELECT $1")
    #expect(statements[4] == "SELECT 'it''s; fine'")
  }

  @Test func everyMigrationSplitsIntoStatements() {
    for migration in SchemaMigration.all {
      let statements = SQLScript.statements(migration.sql)
      #expect(!statements.isEmpty)
      #expect(statements.allSatisfy { !$0.hasSuffix(";") })
    }
  }
}
