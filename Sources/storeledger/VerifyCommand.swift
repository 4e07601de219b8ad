import AppStoreVerification
import ArgumentParser
import Foundation
import StoreLedger
import StoreLedgerCore

struct VerifyCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "verify",
    abstract: "Verify signed App Store data and print it decoded.",
    discussion: """
      Reads one compact JWS: a notification's signedPayload, a signed transaction, renewal info, \
      app transaction or retention request; the kind is recognised from the payload. Checks the \
      ES256 signature, the x5c chain up to a trusted root (Apple Root CA - G3 unless --root-cert \
      is given) with Apple's marker extensions, certificate validity at --at, and the identity \
      options given. Nested JWS in a notification are verified too and printed decoded.

      On success prints the payload as JSON and exits 0; otherwise prints \
      "error: <code>: <message>" to standard error and exits 1.

      Examples:
        storeledger verify notification.jws --bundle-id com.example.app \\
          --environment Sandbox
        pbpaste | storeledger verify - --environment Production \\
          --app-apple-id 1234567890 --at now
        storeledger verify tx.jws --root-cert testRoot.der \\
          --at 2025-10-16T05:22:02Z --json
        storeledger verify xcode-transaction.jws --allow-unverified-environments
      """)

  @Argument(help: "File holding the JWS, or - for standard input.")
  var file: String = "-"

  @Option(
    name: .customLong("root-cert"),
    help: "Trusted root certificate, DER or PEM (repeatable). Default: Apple Root CA - G3.")
  var rootCertificates: [String] = []

  @Option(name: .customLong("bundle-id"), help: "Expected bundle id.")
  var bundleId: String?

  @Option(
    name: .customLong("app-apple-id"),
    help: "Expected App Apple ID (checked on Production data; required with Production).")
  var appAppleId: Int64?

  @Option(help: "Expected environment: Production or Sandbox.")
  var environment: String?

  @Option(
    help:
      "When certificates must be valid: signed-date (default), now, or a time (a date, RFC 3339 or Unix ms)."
  )
  var at: String = "signed-date"

  @Flag(
    name: .customLong("allow-unverified-environments"),
    help: "Decode Xcode and LocalTesting data, which Apple does not sign, without verifying it.")
  var allowUnverifiedEnvironments = false

  @Flag(help: "Print a JSON envelope (kind, verification, payload) and JSON errors.")
  var json = false

  func validate() throws {
    if let environment, !["Production", "Sandbox"].contains(environment) {
      throw ValidationError("--environment must be Production or Sandbox")
    }
    if environment == "Production", appAppleId == nil {
      throw ValidationError("--app-apple-id is required with --environment Production")
    }
    _ = try validationTime()
  }

  func run() async throws {
    let output: VerifiedOutput
    do {
      let jws = try InputReader.read(file)
      output = try await VerifiedOutput.make(jws: jws, verifier: try makeVerifier())
    } catch let error as VerificationError {
      report(code: error.code.rawValue, message: error.message)
      throw ExitCode.failure
    } catch let error as InputReader.Failure {
      report(code: "unreadable_input", message: error.message)
      throw ExitCode.failure
    }
    StandardStreams.out(try output.render(envelope: json) + "\n")
  }

  private func makeVerifier() throws -> SignedDataVerifier {
    let roots = try RootCertificates.load(rootCertificates)
    return try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: roots, bundleId: bundleId, appAppleId: appAppleId,
        environment: environment.map(AppStoreEnvironment.init(rawValue:)),
        validationTime: try validationTime(),
        allowUnverifiedEnvironments: allowUnverifiedEnvironments))
  }

  private func validationTime() throws -> ValidationTime {
    switch at {
    case "signed-date": return .signedDate
    case "now": return .now
    default:
      guard let time = InstantText.parse(at) else {
        throw ValidationError(
          InstantText.problem("--at", at) + "; or signed-date, or now")
      }
      return .fixed(time.date)
    }
  }

  private func report(code: String, message: String) {
    StandardStreams.error("error: \(code): \(message)\n")
    if json {
      let object = ["error": ["code": code, "message": message]]
      if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
        StandardStreams.out(String(decoding: data, as: UTF8.self) + "\n")
      }
    }
  }
}
