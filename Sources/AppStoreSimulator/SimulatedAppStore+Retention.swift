import AppStoreServerAPI
import StoreLedgerCore
import Synchronization

/// The Retention Messaging API (images, messages, default messages) on the store's state.
/// A default message may be configured for any product of the simulated subscription group,
/// or any product a transaction of the store names.
extension SimulatedAppStore {
  typealias RetentionFailure = APIErrorResponse.Failure

  func uploadRetentionImage(_ id: String, png: [UInt8]) throws(RetentionFailure) {
    try state.withLock { state throws(RetentionFailure) in
      try state.retention.uploadImage(id, png: png)
    }
  }

  func deleteRetentionImage(_ id: String) throws(RetentionFailure) {
    try state.withLock { state throws(RetentionFailure) in try state.retention.deleteImage(id) }
  }

  func uploadRetentionMessage(_ id: String, _ body: UploadMessageRequestBody)
    throws(RetentionFailure)
  {
    try state.withLock { state throws(RetentionFailure) in
      try state.retention.uploadMessage(id, body)
    }
  }

  func deleteRetentionMessage(_ id: String) throws(RetentionFailure) {
    try state.withLock { state throws(RetentionFailure) in
      try state.retention.deleteMessage(id)
    }
  }

  func retentionList(_ kind: RetentionContentList.Kind) -> RetentionContentList {
    state.withLock { $0.retention.list(kind) }
  }

  func configureDefaultMessage(
    productId: String, locale: String, message: String?
  ) throws(RetentionFailure) {
    try state.withLock { state throws(RetentionFailure) in
      let known =
        SimulatedProducts.subscription(productId) != nil
        || state.transactions.values.contains { $0.payload.productId == productId }
      try state.retention.configureDefault(
        .init(productId: productId, locale: locale), message: message, knownProduct: known)
    }
  }

  func defaultMessage(productId: String, locale: String) throws(RetentionFailure)
    -> DefaultConfigurationRequest
  {
    try state.withLock { state throws(RetentionFailure) in
      try state.retention.defaultMessage(.init(productId: productId, locale: locale))
    }
  }

  func deleteDefaultMessage(productId: String, locale: String) throws(RetentionFailure) {
    try state.withLock { state throws(RetentionFailure) in
      try state.retention.deleteDefault(.init(productId: productId, locale: locale))
    }
  }
}
