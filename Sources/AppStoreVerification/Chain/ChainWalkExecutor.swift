import Dispatch

/// Runs swift-certificates' asynchronous `Verifier` for the synchronous verification API.
///
/// The walk's jobs run on threads of this executor's own queue, never on Swift's cooperative
/// pool, so a caller may block on the result even from inside that pool without starving it.
/// Only a chain-cache miss gets here: once per signing certificate.
final class ChainWalkExecutor: TaskExecutor, @unchecked Sendable {
  static let shared = ChainWalkExecutor()

  private let queue = DispatchQueue(
    label: "storeledger.verification.chain-walk", attributes: .concurrent)

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    let executor = asUnownedTaskExecutor()
    queue.async { job.runSynchronously(on: executor) }
  }

  /// `body`'s result, waited for on the calling thread.
  func run<Result: Sendable>(_ body: @escaping @Sendable () async -> Result) -> Result {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox<Result>()
    Task(executorPreference: self) {
      box.value = await body()
      done.signal()
    }
    done.wait()
    return box.value!
  }

  /// Written once by the task before it signals, read once after the wait.
  private final class ResultBox<Value>: @unchecked Sendable {
    var value: Value?
  }
}
