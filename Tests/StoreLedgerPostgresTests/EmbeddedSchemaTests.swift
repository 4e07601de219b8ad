import Foundation
import StoreLedgerPostgres
import Testing

/// The migrations compiled into the binary are exactly the files in schema/.
@Suite struct EmbeddedSchemaTests {
  @Test func embeddedMigrationsMatchSchemaFiles() throws {
    let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("schema")
    let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { $0.hasSuffix(".sql") }.sorted()
    #expect(files.count == SchemaMigration.all.count, "run scripts/embed-schema")
    for (file, migration) in zip(files, SchemaMigration.all) {
      let sql = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      #expect(file == String(format: "%04d_%@.sql", migration.version, migration.name))
      #expect(
        sql == migration.sql, "\(file) differs from its embedded copy: run scripts/embed-schema")
    }
    #expect(SchemaMigration.all.map(\.version) == Array(1...SchemaMigration.all.count))
  }
}
