internal import CKioskOpenSSL
public import KioskCore

/// An ECDSA P-256 public key that verifies package signatures. Owns one `EVP_PKEY`.
public final class ECDSAPublicKey: StreamingSignatureVerifier, @unchecked Sendable {
    // The EVP_PKEY is only read after init (EVP_DigestVerify* take it const), which OpenSSL allows from any thread.
    private let key: OpaquePointer

    /// Reads a PEM `PUBLIC KEY` (SubjectPublicKeyInfo). The corresponding C function is `PEM_read_bio_PUBKEY`.
    public convenience init(pem: String) throws(OpenSSLError) {
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let parsed else { throw OpenSSLError.current("PEM_read_bio_PUBKEY") }
        try self.init(owning: parsed)
    }

    /// Reads a DER SubjectPublicKeyInfo. The corresponding C function is `d2i_PUBKEY`.
    public convenience init(der: [UInt8]) throws(OpenSSLError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw OpenSSLError.current("d2i_PUBKEY") }
        try self.init(owning: parsed)
    }

    private init(owning key: OpaquePointer) throws(OpenSSLError) {
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256 else {
            EVP_PKEY_free(key)
            throw OpenSSLError(operation: "ECDSA public key", code: 0, reason: "not a P-256 key")
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// The corresponding C functions are `EVP_DigestVerifyInit` and `EVP_DigestVerify` with SHA-256.
    public func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        guard !signature.isEmpty, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let result: Int32 = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return -1 }
                var empty: UInt8 = 0
                return withUnsafePointer(to: &empty) { fallback in
                    EVP_DigestVerify(context, sig.baseAddress, sig.count, msg.baseAddress ?? fallback, msg.count)
                }
            }
        }
        ERR_clear_error()
        return result == 1
    }

    /// A SHA-256 fed piece by piece (`OpenSSLSHA256Stream`), for `isValidSignature(_:forSHA256:)`.
    public func makeSHA256() -> any SHA256Stream { OpenSSLSHA256Stream() }

    /// Verifies `signature` over a message given as its SHA-256 `digest` (hashed piece by piece, so the message was
    /// never held whole). The corresponding C functions are `EVP_PKEY_verify_init`, `EVP_PKEY_CTX_set_signature_md`
    /// with SHA-256 and `EVP_PKEY_verify`.
    public func isValidSignature(_ signature: [UInt8], forSHA256 digest: [UInt8]) -> Bool {
        guard !signature.isEmpty, digest.count == 32, let context = EVP_PKEY_CTX_new(key, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        let result: Int32 = signature.withUnsafeBufferPointer { sig in
            digest.withUnsafeBufferPointer { hash in
                guard EVP_PKEY_verify_init(context) == 1,
                    EVP_PKEY_CTX_set_signature_md(context, EVP_sha256()) == 1
                else { return -1 }
                return EVP_PKEY_verify(context, sig.baseAddress, sig.count, hash.baseAddress, hash.count)
            }
        }
        ERR_clear_error()
        return result == 1
    }

    /// The key as DER SubjectPublicKeyInfo. The corresponding C function is `i2d_PUBKEY`.
    public var derRepresentation: [UInt8] {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &out)
        guard length > 0, let out else { return [] }
        defer { CRYPTO_free(out, #fileID, #line) }
        return Array(UnsafeBufferPointer(start: out, count: Int(length)))
    }

    /// The key as PEM text. The corresponding C function is `PEM_write_bio_PUBKEY`.
    public var pemRepresentation: String {
        MemoryBIO.text { bio in PEM_write_bio_PUBKEY(bio, key) == 1 }
    }
}

/// An ECDSA P-256 private key that signs packages (the authority tool). Owns one `EVP_PKEY`.
public final class ECDSAPrivateKey: PackageSigner, @unchecked Sendable {
    // Signing creates its own EVP_MD_CTX per call; the key itself is only read.
    private let key: OpaquePointer

    /// A fresh key from the CSPRNG. The corresponding C functions are `EVP_PKEY_keygen_init`,
    /// `EVP_PKEY_CTX_set_ec_paramgen_curve_nid` and `EVP_PKEY_keygen`.
    public init() throws(OpenSSLError) {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else {
            throw OpenSSLError.current("EVP_PKEY_CTX_new_id")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1,
            EVP_PKEY_keygen(context, &generated) == 1, let generated
        else {
            throw OpenSSLError.current("EVP_PKEY_keygen")
        }
        self.key = generated
    }

    /// Reads a PEM private key (PKCS#8 or SEC1). The corresponding C function is `PEM_read_bio_PrivateKey`.
    public init(pem: String) throws(OpenSSLError) {
        let bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let parsed else { throw OpenSSLError.current("PEM_read_bio_PrivateKey") }
        guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_EC, EVP_PKEY_get_bits(parsed) == 256 else {
            EVP_PKEY_free(parsed)
            throw OpenSSLError(operation: "ECDSA private key", code: 0, reason: "not a P-256 key")
        }
        self.key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    /// The private key as PKCS#8 PEM. The corresponding C function is `PEM_write_bio_PrivateKey`.
    public var pemRepresentation: String {
        MemoryBIO.text { bio in PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 }
    }

    /// The matching public key.
    public func publicKey() throws(OpenSSLError) -> ECDSAPublicKey {
        var out: UnsafeMutablePointer<UInt8>?
        let length = i2d_PUBKEY(key, &out)
        guard length > 0, let out else { throw OpenSSLError.current("i2d_PUBKEY") }
        defer { CRYPTO_free(out, #fileID, #line) }
        return try ECDSAPublicKey(der: Array(UnsafeBufferPointer(start: out, count: Int(length))))
    }

    /// The corresponding C functions are `EVP_DigestSignInit` and `EVP_DigestSign` with SHA-256.
    public func signature(for message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .libraryFailure(OpenSSLError.drain("EVP_MD_CTX_new")) }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 80)
        var length = signature.count
        let ok: Bool = message.withUnsafeBufferPointer { msg in
            signature.withUnsafeMutableBufferPointer { sig in
                var empty: UInt8 = 0
                return withUnsafePointer(to: &empty) { fallback in
                    EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1
                        && EVP_DigestSign(context, sig.baseAddress, &length, msg.baseAddress ?? fallback, msg.count)
                            == 1
                }
            }
        }
        guard ok else { throw .libraryFailure(OpenSSLError.drain("EVP_DigestSign")) }
        return Array(signature[0..<length])
    }
}

/// A memory `BIO` that collects text written by a PEM writer.
private enum MemoryBIO {
    static func text(_ write: (OpaquePointer) -> Bool) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard write(bio) else {
            ERR_clear_error()
            return ""
        }
        var data: UnsafeMutablePointer<CChar>?
        let length = ckiosk_bio_get_mem_data(bio, &data)
        guard length > 0, let data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    }
}
