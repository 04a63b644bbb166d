internal import CKioskOpenSSL
public import KioskCore

/// The kiosk's cryptography, done by OpenSSL 3 (libcrypto).
///
/// Stateless: every call creates and frees its own OpenSSL context, so the value can be shared freely.
public struct OpenSSLCrypto: CryptoProvider {
    public init() {}

    /// The corresponding C function is `EVP_Digest` with `EVP_sha256`.
    public func sha256(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = data.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        guard ok == 1, length == 32 else { throw .libraryFailure(OpenSSLError.drain("EVP_Digest")) }
        return out
    }

    /// The corresponding C function is `HMAC` with `EVP_sha256`.
    public func hmacSHA256(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        // An empty key is legal for HMAC, but OpenSSL wants a non-NULL pointer: lend it one byte, length 0.
        let keyStorage = key.isEmpty ? [0] : key
        let result = keyStorage.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { input in
                out.withUnsafeMutableBufferPointer { output in
                    HMAC(
                        EVP_sha256(), keyBytes.baseAddress, Int32(key.count),
                        input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count,
                        output.baseAddress, &length)
                }
            }
        }
        guard result != nil, length == 32 else { throw .libraryFailure(OpenSSLError.drain("HMAC")) }
        return out
    }

    /// The corresponding C functions are `EVP_PKEY_derive` on an `EVP_PKEY_HKDF` context with
    /// `EVP_PKEY_CTX_set_hkdf_md`, `EVP_PKEY_CTX_set1_hkdf_salt`, `EVP_PKEY_CTX_set1_hkdf_key` and
    /// `EVP_PKEY_CTX_add1_hkdf_info`.
    public func hkdfSHA256(inputKeyMaterial: [UInt8], salt: [UInt8], info: [UInt8], length: Int) throws(CryptoError)
        -> [UInt8]
    {
        guard length > 0, length <= 255 * 32 else { throw .invalidParameter("HKDF output length") }
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, nil) else {
            throw .libraryFailure(OpenSSLError.drain("EVP_PKEY_CTX_new_id"))
        }
        defer { EVP_PKEY_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: length)
        var outLength = length
        // OpenSSL copies salt, key and info (the `set1`/`add1` calls), so the buffers need only live for the call.
        // Empty salt or key are legal, but OpenSSL wants non-NULL pointers: lend one byte and pass length 0.
        let saltStorage = salt.isEmpty ? [0] : salt
        let keyStorage = inputKeyMaterial.isEmpty ? [0] : inputKeyMaterial
        let ok: Bool = keyStorage.withUnsafeBufferPointer { ikm in
            saltStorage.withUnsafeBufferPointer { saltBytes in
                info.withUnsafeBufferPointer { infoBytes in
                    out.withUnsafeMutableBufferPointer { output in
                        EVP_PKEY_derive_init(context) == 1
                            && EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) == 1
                            && EVP_PKEY_CTX_set1_hkdf_salt(context, saltBytes.baseAddress, Int32(salt.count)) == 1
                            && EVP_PKEY_CTX_set1_hkdf_key(context, ikm.baseAddress, Int32(inputKeyMaterial.count)) == 1
                            && (infoBytes.isEmpty
                                || EVP_PKEY_CTX_add1_hkdf_info(context, infoBytes.baseAddress, Int32(infoBytes.count))
                                    == 1)
                            && EVP_PKEY_derive(context, output.baseAddress, &outLength) == 1
                    }
                }
            }
        }
        guard ok, outLength == length else {
            wipe(&out)
            throw .libraryFailure(OpenSSLError.drain("EVP_PKEY_derive"))
        }
        return out
    }

    public func aesCTR(key: [UInt8], iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard iv.count == 16 else { throw .invalidParameter("AES-CTR IV length") }
        let cipher: OpaquePointer?
        switch key.count {
        case 16: cipher = EVP_aes_128_ctr()
        case 32: cipher = EVP_aes_256_ctr()
        default: throw .invalidParameter("AES-CTR key length")
        }
        return try CipherRun.run(cipher: cipher, key: key, iv: iv, input: data, encrypt: true, padding: false)
    }

    public func aes256CBCEncrypt(key: [UInt8], iv: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 32 else { throw .invalidParameter("AES-256-CBC key length") }
        guard iv.count == 16 else { throw .invalidParameter("AES-CBC IV length") }
        return try CipherRun.run(
            cipher: EVP_aes_256_cbc(), key: key, iv: iv, input: plaintext, encrypt: true, padding: true)
    }

    public func aes256CBCDecrypt(key: [UInt8], iv: [UInt8], ciphertext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 32 else { throw .invalidParameter("AES-256-CBC key length") }
        guard iv.count == 16 else { throw .invalidParameter("AES-CBC IV length") }
        guard !ciphertext.isEmpty, ciphertext.count % 16 == 0 else { throw .decryptionFailed }
        do {
            return try CipherRun.run(
                cipher: EVP_aes_256_cbc(), key: key, iv: iv, input: ciphertext, encrypt: false, padding: true)
        } catch {
            throw .decryptionFailed
        }
    }

    public func aes256GCMSeal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], additionalData: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        guard key.count == 32 else { throw .invalidParameter("AES-256-GCM key length") }
        guard nonce.count == 12 else { throw .invalidParameter("AES-GCM nonce length") }
        return try GCMRun.seal(key: key, nonce: nonce, plaintext: plaintext, additionalData: additionalData)
    }

    public func aes256GCMOpen(key: [UInt8], nonce: [UInt8], sealed: [UInt8], additionalData: [UInt8])
        throws(CryptoError) -> [UInt8]
    {
        guard key.count == 32 else { throw .invalidParameter("AES-256-GCM key length") }
        guard nonce.count == 12 else { throw .invalidParameter("AES-GCM nonce length") }
        guard sealed.count >= GCMRun.tagLength else { throw .authenticationFailed }
        return try GCMRun.open(key: key, nonce: nonce, sealed: sealed, additionalData: additionalData)
    }

    /// The corresponding C function is `RAND_bytes`, seeded by the operating system's CSPRNG.
    public func randomBytes(count: Int) throws(CryptoError) -> [UInt8] {
        guard count >= 0 else { throw .invalidParameter("random byte count") }
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        let ok = out.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
        guard ok == 1 else { throw .randomUnavailable }
        return out
    }

    /// The corresponding C function is `CRYPTO_memcmp`. Different lengths compare unequal at once: lengths are public.
    public func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, x.count) == 0 }
        }
    }

    /// The corresponding C function is `OPENSSL_cleanse`.
    public func wipe(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
        }
    }
}

/// One `EVP_CIPHER_CTX` for one operation, freed when the run ends (shared with `OpenSSLCrypto+AES128.swift`).
enum CipherRun {
    static func run(cipher: OpaquePointer?, key: [UInt8], iv: [UInt8], input: [UInt8], encrypt: Bool, padding: Bool)
        throws(CryptoError) -> [UInt8]
    {
        guard let context = EVP_CIPHER_CTX_new() else {
            throw .libraryFailure(OpenSSLError.drain("EVP_CIPHER_CTX_new"))
        }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: input.count + 32)
        var total = 0
        let ok: Bool = key.withUnsafeBufferPointer { keyBytes in
            iv.withUnsafeBufferPointer { ivBytes in
                input.withUnsafeBufferPointer { inBytes in
                    out.withUnsafeMutableBufferPointer { outBytes in
                        guard
                            EVP_CipherInit_ex(
                                context, cipher, nil, keyBytes.baseAddress, ivBytes.baseAddress, encrypt ? 1 : 0) == 1,
                            EVP_CIPHER_CTX_set_padding(context, padding ? 1 : 0) == 1
                        else { return false }
                        var written: Int32 = 0
                        if !inBytes.isEmpty {
                            guard
                                EVP_CipherUpdate(
                                    context, outBytes.baseAddress, &written, inBytes.baseAddress, Int32(inBytes.count))
                                    == 1
                            else { return false }
                            total = Int(written)
                        }
                        guard EVP_CipherFinal_ex(context, outBytes.baseAddress! + total, &written) == 1 else {
                            return false
                        }
                        total += Int(written)
                        return true
                    }
                }
            }
        }
        guard ok else {
            OpenSSLCrypto().wipe(&out)
            throw .libraryFailure(
                OpenSSLError.drain(encrypt ? "EVP_CipherUpdate (encrypt)" : "EVP_CipherUpdate (decrypt)"))
        }
        return Array(out[0..<total])
    }
}

/// AES-256-GCM through `EVP_EncryptInit_ex`/`EVP_DecryptInit_ex` and the `EVP_CTRL_GCM_*` controls.
private enum GCMRun {
    static let tagLength = 16

    static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], additionalData: [UInt8]) throws(CryptoError)
        -> [UInt8]
    {
        guard let context = EVP_CIPHER_CTX_new() else {
            throw .libraryFailure(OpenSSLError.drain("EVP_CIPHER_CTX_new"))
        }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + tagLength)
        let ok: Bool = key.withUnsafeBufferPointer { k in
            nonce.withUnsafeBufferPointer { n in
                plaintext.withUnsafeBufferPointer { p in
                    additionalData.withUnsafeBufferPointer { a in
                        out.withUnsafeMutableBufferPointer { o in
                            var written: Int32 = 0
                            guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
                                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(n.count), nil) == 1,
                                EVP_EncryptInit_ex(context, nil, nil, k.baseAddress, n.baseAddress) == 1
                            else { return false }
                            if !a.isEmpty {
                                guard EVP_EncryptUpdate(context, nil, &written, a.baseAddress, Int32(a.count)) == 1
                                else { return false }
                            }
                            var count = 0
                            if !p.isEmpty {
                                guard
                                    EVP_EncryptUpdate(context, o.baseAddress, &written, p.baseAddress, Int32(p.count))
                                        == 1
                                else { return false }
                                count = Int(written)
                            }
                            guard EVP_EncryptFinal_ex(context, o.baseAddress! + count, &written) == 1 else {
                                return false
                            }
                            count += Int(written)
                            return count == p.count
                                && EVP_CIPHER_CTX_ctrl(
                                    context, EVP_CTRL_GCM_GET_TAG, Int32(tagLength), o.baseAddress! + count) == 1
                        }
                    }
                }
            }
        }
        guard ok else { throw .libraryFailure(OpenSSLError.drain("AES-GCM seal")) }
        return out
    }

    static func open(key: [UInt8], nonce: [UInt8], sealed: [UInt8], additionalData: [UInt8]) throws(CryptoError)
        -> [UInt8]
    {
        guard let context = EVP_CIPHER_CTX_new() else {
            throw .libraryFailure(OpenSSLError.drain("EVP_CIPHER_CTX_new"))
        }
        defer { EVP_CIPHER_CTX_free(context) }
        let bodyCount = sealed.count - tagLength
        var tag = Array(sealed[bodyCount...])
        var out = [UInt8](repeating: 0, count: bodyCount + 16)
        var produced = 0
        let ok: Bool = key.withUnsafeBufferPointer { k in
            nonce.withUnsafeBufferPointer { n in
                sealed.withUnsafeBufferPointer { s in
                    additionalData.withUnsafeBufferPointer { a in
                        out.withUnsafeMutableBufferPointer { o in
                            tag.withUnsafeMutableBytes { t in
                                var written: Int32 = 0
                                guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, nil, nil) == 1,
                                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_IVLEN, Int32(n.count), nil) == 1,
                                    EVP_DecryptInit_ex(context, nil, nil, k.baseAddress, n.baseAddress) == 1
                                else { return false }
                                if !a.isEmpty {
                                    guard EVP_DecryptUpdate(context, nil, &written, a.baseAddress, Int32(a.count)) == 1
                                    else { return false }
                                }
                                if bodyCount > 0 {
                                    guard
                                        EVP_DecryptUpdate(
                                            context, o.baseAddress, &written, s.baseAddress, Int32(bodyCount)) == 1
                                    else { return false }
                                    produced = Int(written)
                                }
                                guard
                                    EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagLength), t.baseAddress)
                                        == 1
                                else { return false }
                                return EVP_DecryptFinal_ex(context, o.baseAddress! + produced, &written) == 1
                            }
                        }
                    }
                }
            }
        }
        guard ok else {
            OpenSSLCrypto().wipe(&out)
            ERR_clear_error()
            throw .authenticationFailed
        }
        return Array(out[0..<produced])
    }
}
