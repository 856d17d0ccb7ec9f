/// The connection and message id a refusal is answered to.
struct Origin: Sendable {
  let link: Peer
  /// The `id` of the message that asked, echoed as `re`.
  let re: Int?
}
