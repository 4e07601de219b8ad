// Verification throughput on one core: warm chain cache, cold (full chain every time), and
// the raw ECDSA ceilings, all measured in the same run.
//
//   swift run -c release VerificationBenchmark [--seconds S] [--rounds R] [--jws FILE]
//   VerificationBenchmark --only INDEX --iterations N   (run one case; see scripts/bench)
//
// Without --jws it signs a full, realistic transaction with the test PKI (P-256 leaf,
// P-384 intermediate and root, as Apple's chain); with --jws it verifies that file
// (for example a real Apple-signed transaction) at its signedDate against Apple's root.
//
// The cases run interleaved in short slices, round after round, and each figure is the
// median over rounds, so a neighbour's load on this shared machine hits every case alike;
// ratios are taken within each round.
import AppStoreVerification
import Foundation

func argument(_ name: String) -> String? {
  guard let index = CommandLine.arguments.firstIndex(of: name),
    index + 1 < CommandLine.arguments.count
  else { return nil }
  return CommandLine.arguments[index + 1]
}

let budget = Double(argument("--seconds") ?? "20") ?? 20
let rounds = Int(argument("--rounds") ?? "10") ?? 10
let (jws, roots, source) = try BenchmarkInput.load(path: argument("--jws"))

let warmVerifier = try SignedDataVerifier(
  configuration: VerifierConfiguration(trustedRoots: roots))
let coldVerifier = try SignedDataVerifier(
  configuration: VerifierConfiguration(trustedRoots: roots, chainCacheCapacity: nil))
let p256 = try RawP256Signature(jws: jws)
let p384 = RawP384Signature()

/// The loop callgrind counts (scripts/bench collects only inside this function).
@inline(never)
func measuredLoop(_ benchmark: BenchmarkCase, iterations: Int) async throws {
  for _ in 0..<iterations { try await benchmark.body() }
}

let cases = [
  BenchmarkCase(name: "raw P-256 ECDSA verify (ES256)") { try await p256.verify() },
  BenchmarkCase(name: "raw P-384 ECDSA verify") { try await p384.verify() },
  BenchmarkCase(name: "verified JWS, warm chain cache") {
    _ = try await warmVerifier.verifyTransaction(jws)
  },
  BenchmarkCase(name: "verified JWS, cold (full chain)") {
    _ = try await coldVerifier.verifyTransaction(jws)
  },
  // What a server of several apps adds to each webhook: reading the (unverified) bundle id
  // that chooses the app's verifier.
  BenchmarkCase(name: "bundle id probe (routing)") { _ = try SignedDataKind.claims(of: jws) },
]
if let only = argument("--only").flatMap(Int.init) {
  // One case, a fixed number of times and nothing else: for a profiler or for counting
  // instructions under callgrind (scripts/bench), which are immune to a neighbour's load.
  try await measuredLoop(cases[only], iterations: Int(argument("--iterations") ?? "1000") ?? 1000)
  exit(0)
}

let report = try await InterleavedRun(cases: cases, rounds: rounds, seconds: budget).run()

print("input: \(source), \(jws.utf8.count) bytes of JWS; \(rounds) rounds, one thread")
for (index, benchmark) in cases.enumerated() {
  let rate = report.medianRate(index)
  print(
    benchmark.name.padding(toLength: 34, withPad: " ", startingAt: 0)
      + String(format: "%9.0f /s  %8.1f µs", rate, 1e6 / rate))
}
let warmToRaw = report.medianRatio { $0[2] / $0[0] }
let coldCeiling = report.medianRatio { 1 / (1 / $0[0] + 2 / $0[1]) }
let coldToCeiling = report.medianRatio { $0[3] / (1 / (1 / $0[0] + 2 / $0[1])) }
let warmToCold = report.medianRatio { $0[2] / $0[3] }
let probeShare = report.medianRatio { $0[2] / $0[4] }
print(String(format: "warm / raw ES256:                  %.2f", warmToRaw))
print(String(format: "warm / cold:                       %.1f×", warmToCold))
print(String(format: "routing probe / warm verify:       %.3f", probeShare))
print(
  String(
    format: "cold ceiling (1 P-256 + 2 P-384):  %.0f /s; cold reaches %.2f of it",
    coldCeiling, coldToCeiling))

let cores = ProcessInfo.processInfo.activeProcessorCount
let parallelSeconds = min(4, budget / 5)
let parallelRaw = await ParallelRun.rate(tasks: cores, seconds: parallelSeconds) {
  try await p256.verify()
}
let parallelWarm = await ParallelRun.rate(tasks: cores, seconds: parallelSeconds) {
  _ = try await warmVerifier.verifyTransaction(jws)
}
print(
  String(
    format: "all %d cores, one shared verifier: warm %.0f /s, raw ES256 %.0f /s (%.2f)",
    cores, parallelWarm, parallelRaw, parallelWarm / parallelRaw))
