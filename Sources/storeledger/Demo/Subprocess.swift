import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a program to its end with posix_spawn and waitpid: no pipes and no SIGCHLD handling,
/// so a server the program leaves running cannot hold us up.
enum Subprocess {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Runs `executable` with `arguments`, standard input from /dev/null, standard output and
  /// error appended to `output` (or discarded); returns its exit status.
  @discardableResult
  static func run(_ executable: String, _ arguments: [String], output: String? = nil) throws
    -> Int32
  {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(
      &actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid = pid_t()
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else {
      throw Failure(description: "cannot run \(executable): \(String(cString: strerror(spawned)))")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 {
      guard errno == EINTR else { throw Failure(description: "lost \(executable)") }
    }
    // WIFEXITED / WEXITSTATUS, which Swift does not import.
    return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
  }
}
