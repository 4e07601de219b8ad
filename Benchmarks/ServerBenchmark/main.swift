import Foundation

// Server benchmark: webhook ingest of distinct signed notifications from concurrent HTTP
// clients over loopback, and GET entitlements over many accounts, each next to ceilings
// measured in the same run (verification alone, plain INSERT, an HTTP endpoint without the
// database). Usage: ServerBenchmark --database-url URL [--notifications N] [--accounts N]
//   [--clients N] [--seconds S] [--port P] [--read-database-url REPLICA]

let options = try ServerBenchmarkOptions.parse(CommandLine.arguments.dropFirst())
try await ServerBenchmarkRun(options: options).run()
