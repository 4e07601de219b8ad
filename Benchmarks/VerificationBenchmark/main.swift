// Verification throughput on one core: warm chain cache, cold (full chain every time), and
// the raw P-256 ECDSA verify ceiling, all measured in the same run.
//
//   swift run -c release VerificationBenchmark [--seconds S] [--jws FILE]
//
// Without --jws it signs a full, realistic transaction with the test PKI (P-256 leaf,
// P-384 intermediate and root, as Apple's chain); with --jws it verifies that file
// (for example a real Apple-signed transaction) at its signedDate against Apple's root.
import AppStoreVerification
import Crypto
import Foundation

struct Measurement {
  let name: String
  let operations: Int
  let seconds: Double
  var perSecond: Double { Double(operations) / seconds }
}

func measure(_ name: String, seconds budget: Double, _ body: () throws -> Void) rethrows
  -> Measurement
{
  for _ in 0..<200 { try body() }
  var best = 0.0
  var result = Measurement(name: name, operations: 0, seconds: 1)
  for _ in 0..<3 {
    let start = DispatchTime.now().uptimeNanoseconds
    var operations = 0
    var elapsed = 0.0
    repeat {
      for _ in 0..<100 { try body() }
      operations += 100
      elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    } while elapsed < budget / 3
    let run = Measurement(name: name, operations: operations, seconds: elapsed)
    if run.perSecond > best {
      best = run.perSecond
      result = run
    }
  }
  return result
}

func argument(_ name: String) -> String? {
  guard let index = CommandLine.arguments.firstIndex(of: name),
    index + 1 < CommandLine.arguments.count
  else { return nil }
  return CommandLine.arguments[index + 1]
}

let budget = Double(argument("--seconds") ?? "3") ?? 3
let (jws, roots, source) = try BenchmarkInput.load(path: argument("--jws"))

let warmVerifier = try SignedDataVerifier(
  configuration: VerifierConfiguration(trustedRoots: roots))
let coldVerifier = try SignedDataVerifier(
  configuration: VerifierConfiguration(trustedRoots: roots, chainCacheCapacity: nil))
let raw = try RawSignature(jws: jws)

print("input: \(source), \(jws.utf8.count) bytes of JWS")
if argument("--profile-warm") != nil {
  // A long warm-only run, for a profiler to attach to.
  for _ in 0..<Int(argument("--profile-warm")!)! { _ = try warmVerifier.verifyTransaction(jws) }
  exit(0)
}
let p384 = RawP384Signature()
let results = [
  try measure("raw P-256 ECDSA verify", seconds: budget) { try raw.verify() },
  try measure("raw P-384 ECDSA verify", seconds: budget) { try p384.verify() },
  try measure("verified JWS, warm chain cache", seconds: budget) {
    _ = try warmVerifier.verifyTransaction(jws)
  },
  try measure("verified JWS, cold (full chain)", seconds: budget) {
    _ = try coldVerifier.verifyTransaction(jws)
  },
]
let ceiling = results[0].perSecond
let coldCeiling = 1 / (1 / results[0].perSecond + 2 / results[1].perSecond)
for result in results {
  let line =
    result.name.padding(toLength: 34, withPad: " ", startingAt: 0)
    + String(
      format: "%10.0f /s   %7.1f µs   %.2f× raw ES256", result.perSecond,
      1e6 / result.perSecond, result.perSecond / ceiling)
  print(line)
}
let (warm, cold) = (results[2].perSecond, results[3].perSecond)
print(String(format: "warm / cold: %.1f×", warm / cold))
print(
  String(
    format: "cold ceiling (1 P-256 + 2 P-384 verifies): %.0f /s; cold reaches %.2f of it",
    coldCeiling, cold / coldCeiling))
