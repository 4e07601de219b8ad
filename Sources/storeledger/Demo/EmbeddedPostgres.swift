import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A private PostgreSQL cluster for the demo, made from the machine's server binaries: a data
/// directory under `.storeledger/`, a free loopback port, trust authentication for local
/// connections only, and (when we are root, which PostgreSQL refuses) run as the `postgres`
/// user. Its processes get their own session, so a Ctrl-C meant for us does not stop it before
/// we do.
struct EmbeddedPostgres: Sendable {
  let binDirectory: String
  /// Holds the data directory and the logs.
  let directory: String
  let dataDirectory: String
  let port: Int
  let runAsUser: String?

  /// Why the cluster could not be made; says what to do instead.
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres" }

  /// Starts a cluster in `directory` (kept from an earlier `--keep`, or made now), installing
  /// the `postgresql` package first when no server binaries are found.
  static func start(in relativeDirectory: String, say: (String) -> Void) throws -> EmbeddedPostgres
  {
    let binaries = try serverBinaries(say: say)
    let runAs = getuid() == 0 ? "postgres" : nil
    let directory = try usableDirectory(
      URL(fileURLWithPath: relativeDirectory).standardizedFileURL.path, for: runAs, say: say)
    let data = directory + "/data"
    let cluster = EmbeddedPostgres(
      binDirectory: binaries, directory: directory, dataDirectory: data, port: try freePort(),
      runAsUser: runAs)
    if !FileManager.default.fileExists(atPath: data + "/PG_VERSION") {
      try cluster.postgres(
        "initdb", ["-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8"],
        log: directory + "/initdb.log")
    }
    try cluster.postgres(
      "pg_ctl",
      [
        "-D", data, "-l", directory + "/server.log", "-w", "-t", "60", "-o",
        "-c listen_addresses=127.0.0.1 -p \(cluster.port) -c unix_socket_directories=''"
          + " -c max_connections=200", "start",
      ], log: directory + "/pg_ctl.log")
    return cluster
  }

  /// Stops the cluster, and removes its files when `removing`.
  func stop(removing: Bool) {
    try? postgres("pg_ctl", ["-D", dataDirectory, "-m", "fast", "-w", "stop"], log: nil)
    if removing { try? FileManager.default.removeItem(atPath: directory) }
  }

  /// `directory`, made and owned by `user` — or, when that user cannot reach it (a parent
  /// closed to others, as a root-only temporary directory is), a directory of its own under
  /// /tmp, said so.
  static func usableDirectory(_ directory: String, for user: String?, say: (String) -> Void)
    throws -> String
  {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    guard let user else { return directory }
    try run("/bin/chown", ["-R", "\(user):", directory])
    let reachable = try Subprocess.run(
      "/usr/sbin/runuser", ["-u", user, "--", "/usr/bin/test", "-w", directory])
    if reachable == 0 { return directory }
    let fallback = "/tmp/storeledger-postgres" + directory.replacingOccurrences(of: "/", with: "_")
    say("the \(user) user cannot reach \(directory); the cluster lives in \(fallback) instead")
    try? FileManager.default.removeItem(atPath: directory)
    try FileManager.default.createDirectory(atPath: fallback, withIntermediateDirectories: true)
    try run("/bin/chown", ["-R", "\(user):", fallback])
    return fallback
  }

  /// The newest installed server's bin directory; installs the package when there is none.
  static func serverBinaries(say: (String) -> Void) throws -> String {
    if let found = findServerBinaries() { return found }
    say("PostgreSQL server binaries not found: installing the postgresql package (apt-get)…")
    let sudo = getuid() == 0 ? [] : ["sudo"]
    do {
      try run("/usr/bin/env", sudo + ["apt-get", "update", "-q"])
      try run(
        "/usr/bin/env",
        sudo + ["DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-q", "postgresql"])
    } catch {
      throw Failure(
        description: "installing PostgreSQL failed (\(error)); install PostgreSQL 14 or newer "
          + "yourself, or set DATABASE_URL to a database the demo may use")
    }
    guard let found = findServerBinaries() else {
      throw Failure(description: "no PostgreSQL server binaries after installing; set DATABASE_URL")
    }
    return found
  }

  static func findServerBinaries() -> String? {
    let root = "/usr/lib/postgresql"
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
    let candidates =
      versions.compactMap(Int.init).sorted(by: >).map { "\(root)/\($0)/bin" }
      + ["/usr/local/pgsql/bin", "/opt/homebrew/bin", "/usr/local/bin", "/usr/bin"]
    return candidates.first { directory in
      FileManager.default.isExecutableFile(atPath: directory + "/initdb")
        && FileManager.default.isExecutableFile(atPath: directory + "/pg_ctl")
    }
  }

  /// A port nothing listens on now (the kernel picks it).
  static func freePort() throws -> Int {
    let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard socket >= 0 else { throw Failure(description: "cannot open a socket") }
    defer { close(socket) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
      }
    }
    guard bound else { throw Failure(description: "cannot find a free port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }

  /// Runs a server binary as the cluster's user, in a session of its own; its output goes to
  /// `log` (shown when it fails).
  private func postgres(_ tool: String, _ arguments: [String], log: String?) throws {
    var command = ["/usr/bin/setsid", "-w", binDirectory + "/" + tool] + arguments
    if let runAsUser { command = ["/usr/sbin/runuser", "-u", runAsUser, "--"] + command }
    do {
      try Self.run(command[0], Array(command.dropFirst()), log: log)
    } catch {
      let details = log.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) } ?? ""
      throw Failure(description: "\(tool) failed: \(error)\n\(details.suffix(2000))")
    }
  }

  /// Runs a program to its end; output goes to `log` (never a pipe: a server it starts would
  /// inherit it).
  static func run(_ executable: String, _ arguments: [String], log: String? = nil) throws {
    let status = try Subprocess.run(executable, arguments, output: log)
    guard status == 0 else { throw Failure(description: "\(executable) exited with \(status)") }
  }
}
