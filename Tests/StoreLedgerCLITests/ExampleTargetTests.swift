import Foundation
import Testing

/// The embedding example under Examples/ is built with everything else by the test command.
@Suite struct ExampleTargetTests {
  @Test func theEmbeddingExampleIsBuiltNextToTheCommand() {
    let folder = CommandLineRunner.executable.deletingLastPathComponent()
    #expect(
      FileManager.default.isExecutableFile(
        atPath: folder.appendingPathComponent("EmbeddingExample").path))
  }
}
