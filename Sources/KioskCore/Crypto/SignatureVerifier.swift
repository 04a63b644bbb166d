/// Verifies detached signatures of published packages (ECDSA P-256 / SHA-256, DER-encoded), as a port: the kiosk's
/// implementation is `ECDSAPublicKey` in `KioskOpenSSL`.
public protocol SignatureVerifier: Sendable {
    /// Whether `signature` (DER) is a valid signature of `message` under this key.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool
}

/// Signs packages (the authority tool's side); the implementation is `ECDSAPrivateKey` in `KioskOpenSSL`.
public protocol PackageSigner: Sendable {
    /// A DER-encoded ECDSA P-256 / SHA-256 signature of `message`.
    func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8]
}
