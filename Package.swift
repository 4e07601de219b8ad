// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "StoreLedger",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "StoreLedgerCore", targets: ["StoreLedgerCore"]),
    .library(name: "AppStoreVerification", targets: ["AppStoreVerification"]),
    .library(name: "StoreLedgerPostgres", targets: ["StoreLedgerPostgres"]),
    .library(name: "StoreLedgerMemory", targets: ["StoreLedgerMemory"]),
    .library(name: "StoreLedger", targets: ["StoreLedger"]),
    .library(name: "StoreLedgerServer", targets: ["StoreLedgerServer"]),
    .library(name: "AppStoreServerAPI", targets: ["AppStoreServerAPI"]),
    .library(name: "AppStoreSimulator", targets: ["AppStoreSimulator"]),
    // Signed fixtures and a test PKI, for tests and the benchmarks
    // (their own package, Benchmarks/).
    .library(name: "StoreLedgerTestSupport", targets: ["StoreLedgerTestSupport"]),
    .executable(name: "storeledger", targets: ["storeledger"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
    .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
    .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    // The runtime of the client generated from the served OpenAPI document, for the test that
    // calls the API through it (StoreLedgerOpenAPIClientTests); no product depends on these.
    // The generator is a package of its own (Tools/OpenAPIClientGenerator, scripts/openapi-client):
    // a build plugin's tool is compiled by every build of the package, the CLI's included.
    .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
    .package(
      url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
  ],
  targets: [
    .target(name: "StoreLedgerCore"),
    .target(
      name: "AppStoreVerification",
      dependencies: [
        "StoreLedgerCore",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "X509", package: "swift-certificates"),
        .product(name: "SwiftASN1", package: "swift-asn1"),
      ]
    ),
    .target(
      name: "StoreLedgerPostgres",
      dependencies: [
        "StoreLedgerCore",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    // Every port in memory: the embedder's storage for tests, forgotten with the process.
    .target(
      name: "StoreLedgerMemory",
      dependencies: [
        "StoreLedgerCore",
        .product(name: "Crypto", package: "swift-crypto"),
      ]
    ),
    .target(
      name: "AppStoreServerAPI",
      dependencies: [
        "StoreLedgerCore", "AppStoreVerification",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .target(
      name: "AppStoreSimulator",
      dependencies: [
        "StoreLedgerCore", "AppStoreVerification", "AppStoreServerAPI",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .target(
      name: "StoreLedger",
      dependencies: [
        "StoreLedgerCore", "AppStoreVerification", "StoreLedgerPostgres",
        "AppStoreServerAPI",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .target(
      name: "StoreLedgerServer",
      dependencies: [
        "StoreLedger", "StoreLedgerCore", "AppStoreVerification", "StoreLedgerPostgres",
        "AppStoreServerAPI",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "Prometheus", package: "swift-prometheus"),
      ],
      resources: [.copy("openapi.json")]
    ),
    .executableTarget(
      name: "storeledger",
      dependencies: [
        "StoreLedgerCore",
        "AppStoreVerification",
        "StoreLedgerPostgres",
        "StoreLedger",
        "StoreLedgerServer",
        "AppStoreSimulator",
        "AppStoreServerAPI",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .executableTarget(
      name: "EmbeddingExample",
      dependencies: [
        "StoreLedger", "StoreLedgerCore", "StoreLedgerPostgres",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Examples/EmbeddingExample"),
    .executableTarget(
      name: "ReadmeExample",
      dependencies: [
        "StoreLedger", "StoreLedgerCore", "StoreLedgerPostgres", "StoreLedgerMemory",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Examples/ReadmeExample"),
    .executableTarget(
      name: "DocSnippets",
      dependencies: [
        "StoreLedger", "StoreLedgerCore", "AppStoreVerification", "AppStoreServerAPI",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Examples/DocSnippets"),
    .target(
      name: "StoreLedgerTestSupport",
      dependencies: [
        "StoreLedgerCore",
        "AppStoreVerification",
        "StoreLedgerPostgres",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Tests/StoreLedgerTestSupport"
    ),
    .testTarget(
      name: "AppStoreServerAPITests",
      dependencies: [
        "AppStoreServerAPI", "AppStoreSimulator", "StoreLedgerTestSupport",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
      ]),
    .testTarget(
      name: "StoreLedgerCoreTests", dependencies: ["StoreLedgerCore", "StoreLedgerTestSupport"]),
    .testTarget(
      name: "AppStoreVerificationTests",
      dependencies: [
        "AppStoreVerification",
        "StoreLedgerCore",
        "StoreLedgerTestSupport",
        .product(name: "Crypto", package: "swift-crypto"),
        .product(name: "X509", package: "swift-certificates"),
        .product(name: "SwiftASN1", package: "swift-asn1"),
      ]
    ),
    .testTarget(
      name: "StoreLedgerPostgresTests",
      dependencies: [
        "StoreLedgerPostgres",
        "StoreLedgerTestSupport",
        .product(name: "PostgresNIO", package: "postgres-nio"),
        .product(name: "Logging", package: "swift-log"),
      ]
    ),
    .testTarget(
      name: "StoreLedgerTests",
      dependencies: [
        "StoreLedger", "StoreLedgerCore", "AppStoreVerification", "StoreLedgerPostgres",
        "StoreLedgerMemory", "StoreLedgerTestSupport",
        "AppStoreSimulator", "AppStoreServerAPI",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
      ]
    ),
    .testTarget(
      name: "StoreLedgerServerTests",
      dependencies: [
        "StoreLedgerServer", "StoreLedger", "StoreLedgerCore", "AppStoreVerification",
        "StoreLedgerPostgres", "StoreLedgerMemory", "StoreLedgerTestSupport",
        "AppStoreSimulator", "AppStoreServerAPI",
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "Hummingbird", package: "hummingbird"),
      ]
    ),
    .testTarget(
      name: "StoreLedgerOpenAPIClientTests",
      dependencies: [
        "StoreLedgerServer", "StoreLedger", "StoreLedgerCore", "StoreLedgerTestSupport",
        "AppStoreVerification",
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "Hummingbird", package: "hummingbird"),
      ]
    ),
    .testTarget(
      name: "StoreLedgerCLITests",
      dependencies: [
        "storeledger", "StoreLedgerPostgres", "StoreLedgerTestSupport", "AppStoreSimulator",
        "AppStoreVerification", "StoreLedgerCore",
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)

// Every target is compiled with the same settings: existential types are spelled `any`, and a
// file sees the members only of the modules it imports itself.
for target in package.targets {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
