/// Verifies detached signatures of published packages (ECDSA P-256 / SHA-256, DER-encoded), as a port: the kiosk's
/// implementation is `ECDSAPublicKey` in `KioskOpenSSL`.
public protocol SignatureVerifier: Sendable {
    /// Whether `signature` (DER) is a valid signature of `message` under this key.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool
}

/// A SHA-256 fed piece by piece, so that a package read from a file in chunks is hashed without being held whole.
public protocol SHA256Stream: AnyObject {
    /// Hashes `bytes` after what came before.
    func update(_ bytes: UnsafeRawBufferPointer)
    /// The 32-byte digest of everything given; the stream is used up.
    func finish() -> [UInt8]
}

/// A verifier that also takes the message as its SHA-256, computed piece by piece: how the warnings clients check a
/// package they stream from a file (the kiosk's implementation is `ECDSAPublicKey` in `KioskOpenSSL`).
public protocol StreamingSignatureVerifier: SignatureVerifier {
    /// A fresh SHA-256 for the message.
    func makeSHA256() -> any SHA256Stream
    /// Whether `signature` (DER) is a valid signature, under this key, of the message whose SHA-256 is `digest`.
    func isValidSignature(_ signature: [UInt8], forSHA256 digest: [UInt8]) -> Bool
}

/// Signs packages (the authority tool's side); the implementation is `ECDSAPrivateKey` in `KioskOpenSSL`.
public protocol PackageSigner: Sendable {
    /// A DER-encoded ECDSA P-256 / SHA-256 signature of `message`.
    func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8]
}
