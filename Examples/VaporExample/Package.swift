// swift-tools-version: 6.1
// StoreLedger inside a Vapor server: a package of its own, so that users of the library never
// resolve Vapor. `scripts/test` builds it and runs it as a backend would.
import Foundation
import PackageDescription

/// The library's package, two directories up: a path dependency is known by its directory's
/// name.
let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
  name: "VaporExample",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: "../.."),
    .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
  ],
  targets: [
    .executableTarget(
      name: "VaporExample",
      dependencies: [
        .product(name: "StoreLedger", package: library),
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "StoreLedgerPostgres", package: library),
        .product(name: "AppStoreVerification", package: library),
        .product(name: "Vapor", package: "vapor"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
