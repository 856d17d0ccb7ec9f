// Fuzz target 8: what a client presents as its player identity. The bytes are read as
// the DER certificate a TLS handshake carries, as the server reads a client's
// certificate to learn its key (`Fingerprint.publicKeySHA256(ofDER:)`); the handshake
// itself, with the server asking for identities, is target 3a's.
//
// Invariants: no crash and no leak whatever the bytes; an identity read from them is 64
// lower-case hex digits (what the journal and the name book accept), and the same bytes
// always give the same identity.
import FuzzDriver
import RoshamboGame
import RoshamboTLS

fuzz { buffer in
  let bytes = Array(buffer)
  guard let identity = Fingerprint.publicKeySHA256(ofDER: bytes) else { return }
  require(NameAction.isIdentity(identity), "an identity of the wrong shape: \(identity)")
  require(
    Fingerprint.publicKeySHA256(ofDER: bytes) == identity,
    "the same certificate gave two identities")
}
