// swift-tools-version: 6.1
// Apple's OpenAPI generator, as a package of its own: it writes the client that
// StoreLedgerOpenAPIClientTests calls the API through, from the served document
// (scripts/openapi-client). Kept out of the library's package so that building the library or
// the CLI never builds the generator (OpenAPIKit, Yams and the generator's core).
import PackageDescription

let package = Package(
  name: "OpenAPIClientGenerator",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3")
  ],
  targets: []
)
