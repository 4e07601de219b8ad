// swift-tools-version: 6.1
// StoreLedger's benchmarks, a package of their own so that users of the library never resolve
// them. Each measures against a ceiling taken in the same run; the figures and the commands
// are in ../docs/performance.md, the scripts that run them in ../scripts (bench*).
import Foundation
import PackageDescription

/// The library's package, one directory up: a path dependency is known by its directory's name.
let library = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent().lastPathComponent.lowercased()

let package = Package(
  name: "StoreLedgerBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: ".."),
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
  ],
  targets: [
    .target(
      name: "BenchmarkSupport",
      dependencies: [
        .product(name: "StoreLedgerPostgres", package: library),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "BenchmarkSupport"
    ),
    .executableTarget(
      name: "VerificationBenchmark",
      dependencies: [
        .product(name: "AppStoreVerification", package: library),
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "X509", package: "swift-certificates"),
      ],
      path: "VerificationBenchmark"
    ),
    .executableTarget(
      name: "MetricsBenchmark",
      dependencies: [.product(name: "StoreLedgerServer", package: library)],
      path: "MetricsBenchmark"
    ),
    .executableTarget(
      name: "FoldBenchmark",
      dependencies: [
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "StoreLedgerTestSupport", package: library),
      ],
      path: "FoldBenchmark"
    ),
    .executableTarget(
      name: "ChangeBenchmark",
      dependencies: [
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "StoreLedgerTestSupport", package: library),
      ],
      path: "ChangeBenchmark"
    ),
    .executableTarget(
      name: "DecodeBenchmark",
      dependencies: [
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "StoreLedgerPostgres", package: library),
        .product(name: "StoreLedgerTestSupport", package: library),
      ],
      path: "DecodeBenchmark"
    ),
    .executableTarget(
      name: "AppendBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "StoreLedgerPostgres", package: library),
        .product(name: "StoreLedgerTestSupport", package: library),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "AppendBenchmark"
    ),
    .executableTarget(
      name: "GrowthBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "StoreLedgerPostgres", package: library),
        .product(name: "StoreLedgerTestSupport", package: library),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "GrowthBenchmark"
    ),
    .executableTarget(
      name: "RebuildBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "StoreLedger", package: library),
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "StoreLedgerPostgres", package: library),
        .product(name: "StoreLedgerTestSupport", package: library),
        .product(name: "AppStoreSimulator", package: library),
        .product(name: "AppStoreVerification", package: library),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "RebuildBenchmark"),
    .executableTarget(
      name: "ListBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "AppStoreSimulator", package: library),
        .product(name: "StoreLedger", package: library),
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "StoreLedgerPostgres", package: library),
        .product(name: "StoreLedgerTestSupport", package: library),
        .product(name: "AppStoreVerification", package: library),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "ListBenchmark"),
    .executableTarget(
      name: "RevenueBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "StoreLedger", package: library),
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "StoreLedgerPostgres", package: library),
        .product(name: "StoreLedgerTestSupport", package: library),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "RevenueBenchmark"
    ),
    .executableTarget(
      name: "ServerBenchmark",
      dependencies: [
        "BenchmarkSupport",
        .product(name: "StoreLedgerServer", package: library),
        .product(name: "StoreLedger", package: library),
        .product(name: "StoreLedgerCore", package: library),
        .product(name: "AppStoreVerification", package: library),
        .product(name: "StoreLedgerPostgres", package: library),
        .product(name: "StoreLedgerTestSupport", package: library),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "ServerBenchmark"
    ),
  ],
  swiftLanguageModes: [.v6]
)

// The settings of the library's own targets: existential types are spelled `any`, and a file
// sees the members only of the modules it imports itself.
for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
