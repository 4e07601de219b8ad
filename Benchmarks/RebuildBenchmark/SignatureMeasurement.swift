import AppStoreSimulator
import AppStoreVerification
import Foundation
import Logging
import PostgresNIO
import StoreLedger
import StoreLedgerCore
import StoreLedgerPostgres
import StoreLedgerTestSupport

/// The audit's signature re-verification rate over a simulated year of signed notifications,
/// next to the verifier verifying the same strings in memory.
struct SignatureMeasurement {
  var customers: Int
  let logger: Logger

  struct Result {
    var signatures: Int
    var auditPerSecond: Double
    /// The audit's re-verification on one core (`concurrency: 1`).
    var auditOneCorePerSecond: Double
    var verifierPerSecond: Double
  }

  func run(server: DatabaseURL) async throws -> Result {
    let pki = try TestPKI()
    let simulation = Simulation(SimulationConfiguration(customers: customers, months: 12, seed: 3))
    let store = SimulatedAppStore(
      app: SimulatedApp(bundleId: "com.example.app", appAppleId: 1_234_567_890), signer: pki,
      now: simulation.configuration.start)
    simulation.apply(to: store, through: simulation.configuration.end)
    let signed = store.notifications().map(\.signedPayload)
    let database = try await BenchmarkDatabase.create(on: server, setupSQL: [], logger: logger)
    defer { Task { try? await database.drop() } }
    let configuration = LedgerConfiguration(
      bundleId: "com.example.app", environments: [.sandbox], trustedRoots: pki.trustedRoots)
    let (auditRate, oneCoreRate) = try await database.withWriter { client in
      let ledger = try Ledger(client: client, configuration: configuration, logger: logger)
      for payload in signed { _ = try await ledger.ingest(notification: payload) }
      func rate(_ concurrency: Int) async throws -> Double {
        let report = try await LedgerMaintenance(ledger: ledger).audit(concurrency: concurrency)
        precondition(report.signaturesVerified == signed.count, "\(report.problems.prefix(2))")
        return Double(report.signaturesVerified) / report.signatureSeconds
      }
      let oneCore = try await rate(1)
      return (try await rate(ProcessInfo.processInfo.activeProcessorCount), oneCore)
    }
    let verifier = try SignedDataVerifier(
      configuration: VerifierConfiguration(
        trustedRoots: pki.trustedRoots, bundleId: "com.example.app", environment: .sandbox))
    let start = ContinuousClock.now
    for payload in signed { _ = try await verifier.verifyNotification(payload) }
    let elapsed = ContinuousClock.now - start
    let verifierRate =
      Double(signed.count)
      / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    return Result(
      signatures: signed.count, auditPerSecond: auditRate, auditOneCorePerSecond: oneCoreRate,
      verifierPerSecond: verifierRate)
  }
}
