internal import CKioskPKCS11

/// A logged-in read-write session with one token (`PKCS11Module.openSession`): finds, makes, derives, wraps and
/// destroys AES-128 secret keys, and computes AES-CMAC under them, every key's value staying inside the token.
/// Closed by `close()` or when the last reference goes (`C_CloseSession`, which logs out with the application's last
/// session).
public final class PKCS11Session: Sendable {
    /// An AES-128 key's length in bytes.
    public static let keyBytes = 16

    /// The label of the token this session is with.
    public let tokenLabel: String
    let module: PKCS11Module
    let slot: CK_SLOT_ID
    let handle: CK_SESSION_HANDLE

    init(module: PKCS11Module, slot: CK_SLOT_ID, handle: CK_SESSION_HANDLE, tokenLabel: String) {
        self.module = module
        self.slot = slot
        self.handle = handle
        self.tokenLabel = tokenLabel
    }

    deinit {
        module.closeSession(handle)
    }

    /// Closes the session (`C_CloseSession`); later calls through it throw `.closed`.
    public func close() {
        module.closeSession(handle)
    }

    // MARK: Keys

    /// The AES-128 secret key labelled `label`. It must be an AES key of 16 bytes (or of a length the module did not
    /// record: SoftHSM2 2.6 records none for a key it unwrapped), sensitive (`CKA_SENSITIVE`), and leave the token
    /// in no other way than `allowing` says (by default never: `CKA_EXTRACTABLE` false); `.keyNotUsable` says
    /// which it is not.
    public func findSecretKey(label: String, allowing export: PKCS11KeyExport = .never) throws(PKCS11Error)
        -> PKCS11SecretKey
    {
        try module.withSession(handle) { functions throws(PKCS11Error) in
            let template = Template()
            template.add(CK_ATTRIBUTE_TYPE(CKA_CLASS), CK_ULONG(CKO_SECRET_KEY))
            template.add(CK_ATTRIBUTE_TYPE(CKA_LABEL), label)
            try template.withAttributes { (attributes, count) throws(PKCS11Error) in
                try check("C_FindObjectsInit", functions.C_FindObjectsInit!(handle, attributes, count))
            }
            var found = [CK_OBJECT_HANDLE](repeating: 0, count: 2)
            var foundCount: CK_ULONG = 0
            let answer = functions.C_FindObjects!(handle, &found, CK_ULONG(found.count), &foundCount)
            try check("C_FindObjectsFinal", functions.C_FindObjectsFinal!(handle))
            try check("C_FindObjects", answer)
            guard foundCount > 0 else { throw .keyNotFound(label: label) }
            guard foundCount == 1 else { throw .keyAmbiguous(label: label, count: Int(foundCount)) }
            let object = found[0]
            let keyType = try readULong(functions, object, CK_ATTRIBUTE_TYPE(CKA_KEY_TYPE))
            let length = try readULong(functions, object, CK_ATTRIBUTE_TYPE(CKA_VALUE_LEN))
            // 0: the module did not record the length (SoftHSM2 2.6, for a key it unwrapped).
            guard keyType == CK_ULONG(CKK_AES), length == CK_ULONG(Self.keyBytes) || length == 0 else {
                throw .keyNotUsable(label: label, reason: "it is not an AES-128 key")
            }
            guard try readBool(functions, object, CK_ATTRIBUTE_TYPE(CKA_SENSITIVE)) else {
                throw .keyNotUsable(label: label, reason: "it is not sensitive (CKA_SENSITIVE false)")
            }
            if try readBool(functions, object, CK_ATTRIBUTE_TYPE(CKA_EXTRACTABLE)) {
                let onlyUnderTrusted = try readBool(functions, object, CK_ATTRIBUTE_TYPE(CKA_WRAP_WITH_TRUSTED))
                switch export {
                case .never:
                    throw .keyNotUsable(label: label, reason: "it is extractable (CKA_EXTRACTABLE true)")
                case .underTrustedKeys where !onlyUnderTrusted:
                    throw .keyNotUsable(
                        label: label, reason: "it is extractable under any wrapping key (CKA_WRAP_WITH_TRUSTED false)")
                case .underTrustedKeys, .underAnyWrappingKey:
                    break
                }
            }
            return PKCS11SecretKey(label: label, handle: object)
        }
    }

    /// Generates a new AES-128 key inside the token (`CKM_AES_KEY_GEN`), sensitive, kept on the token, used only as
    /// `usage` says, leaving it only as `export` says (a key that is to be copied to other tokens: wrapped under
    /// trusted keys only).
    public func generateAESKey(
        label: String, usage: PKCS11KeyUsage, export: PKCS11KeyExport = .never, id: [UInt8]? = nil
    ) throws(PKCS11Error) -> PKCS11SecretKey {
        let template = Template.secretKey(label: label, usage: usage, export: export, id: id)
        template.add(CK_ATTRIBUTE_TYPE(CKA_VALUE_LEN), CK_ULONG(Self.keyBytes))
        return try module.withSession(handle) { functions throws(PKCS11Error) in
            var mechanism = CK_MECHANISM(
                mechanism: PKCS11Mechanism.aesKeyGen.rawValue, pParameter: nil, ulParameterLen: 0)
            var object: CK_OBJECT_HANDLE = 0
            try template.withAttributes { (attributes, count) throws(PKCS11Error) in
                try check("C_GenerateKey", functions.C_GenerateKey!(handle, &mechanism, attributes, count, &object))
            }
            return PKCS11SecretKey(label: label, handle: object)
        }
    }

    /// Creates an AES-128 key in the token from a known value (`C_CreateObject` with `CKA_VALUE`): for tests with
    /// published vectors and for set-up, never for a key that is to stay secret (its value was outside a token).
    public func importAESKey(
        label: String, value: [UInt8], usage: PKCS11KeyUsage, export: PKCS11KeyExport = .never, id: [UInt8]? = nil
    ) throws(PKCS11Error) -> PKCS11SecretKey {
        guard value.count == Self.keyBytes else {
            throw .invalidArgument("an AES-128 key has \(Self.keyBytes) bytes, not \(value.count)")
        }
        let template = Template.secretKey(label: label, usage: usage, export: export, id: id)
        template.add(CK_ATTRIBUTE_TYPE(CKA_VALUE), bytes: value)
        return try create(template, label: label)
    }

    /// Installs a wrapping key (`.wrap` only, never leaving the token) from its components, each held by another
    /// person: the key is their exclusive or, formed here and wiped once the token holds it, so no one person ever
    /// knew it. Installed `trusted` (`CKA_TRUSTED`), only the security officer may do it (a `.securityOfficer`
    /// session; the user's attempt fails with `CKR_ATTRIBUTE_READ_ONLY`), and only under such a key does a key made
    /// with `.underTrustedKeys` leave its token.
    public func importWrappingKey(label: String, components: [[UInt8]], trusted: Bool) throws(PKCS11Error)
        -> PKCS11SecretKey
    {
        guard !components.isEmpty, components.allSatisfy({ $0.count == Self.keyBytes }) else {
            throw .invalidArgument("a wrapping key's components have \(Self.keyBytes) bytes each")
        }
        var value = [UInt8](repeating: 0, count: Self.keyBytes)
        for component in components {
            for index in value.indices { value[index] ^= component[index] }
        }
        let template = Template.secretKey(label: label, usage: .wrap, export: .never, trusted: trusted)
        template.add(CK_ATTRIBUTE_TYPE(CKA_VALUE), bytes: value)
        value.withUnsafeMutableBytes { raw in
            for index in raw.indices { raw[index] = 0 }
        }
        return try create(template, label: label)
    }

    private func create(_ template: Template, label: String) throws(PKCS11Error) -> PKCS11SecretKey {
        return try module.withSession(handle) { functions throws(PKCS11Error) in
            var object: CK_OBJECT_HANDLE = 0
            try template.withAttributes { (attributes, count) throws(PKCS11Error) in
                try check("C_CreateObject", functions.C_CreateObject!(handle, attributes, count, &object))
            }
            return PKCS11SecretKey(label: label, handle: object)
        }
    }

    /// Derives a new AES-128 key inside the token from `base` (`C_DeriveKey`; `base` needs `.derive`): neither
    /// value leaves the token. The new key is sensitive, used as `usage` says, leaving the token only as `export`
    /// says (by default never), with `id` as its `CKA_ID`; `onToken` false makes it a session object (an
    /// intermediate key, which the caller destroys and the session's end removes at the latest).
    public func deriveAESKey(
        from base: PKCS11SecretKey, _ derivation: PKCS11Derivation, label: String, usage: PKCS11KeyUsage,
        export: PKCS11KeyExport = .never, id: [UInt8]? = nil, onToken: Bool = true
    ) throws(PKCS11Error) -> PKCS11SecretKey {
        let template = Template.secretKey(label: label, usage: usage, export: export, onToken: onToken, id: id)
        template.add(CK_ATTRIBUTE_TYPE(CKA_VALUE_LEN), CK_ULONG(Self.keyBytes))
        let (type, iv, data): (PKCS11Mechanism, [UInt8], [UInt8])
        switch derivation {
        case .aesECBEncryptData(let input):
            (type, iv, data) = (.aesECBEncryptData, [], input)
        case .aesCBCEncryptData(let vector, let input):
            guard vector.count == 16 else { throw .invalidArgument("the IV has 16 bytes, not \(vector.count)") }
            (type, iv, data) = (.aesCBCEncryptData, vector, input)
        }
        guard data.count == Self.keyBytes else {
            throw .invalidArgument("the derivation input has \(Self.keyBytes) bytes (one AES block), not \(data.count)")
        }
        return try module.withSession(handle) { functions throws(PKCS11Error) in
            var data = data
            var object: CK_OBJECT_HANDLE = 0
            try data.withUnsafeMutableBufferPointer { (input) throws(PKCS11Error) in
                if type == .aesECBEncryptData {
                    var parameters = CK_KEY_DERIVATION_STRING_DATA(
                        pData: input.baseAddress, ulLen: CK_ULONG(input.count))
                    try withUnsafeMutableBytes(of: &parameters) { (raw) throws(PKCS11Error) in
                        try derive(functions, type, raw, base, template, &object)
                    }
                } else {
                    var parameters = CK_AES_CBC_ENCRYPT_DATA_PARAMS()
                    withUnsafeMutableBytes(of: &parameters.iv) { $0.copyBytes(from: iv) }
                    parameters.pData = input.baseAddress
                    parameters.length = CK_ULONG(input.count)
                    try withUnsafeMutableBytes(of: &parameters) { (raw) throws(PKCS11Error) in
                        try derive(functions, type, raw, base, template, &object)
                    }
                }
            }
            return PKCS11SecretKey(label: label, handle: object)
        }
    }

    private func derive(
        _ functions: CK_FUNCTION_LIST, _ type: PKCS11Mechanism, _ parameters: UnsafeMutableRawBufferPointer,
        _ base: PKCS11SecretKey, _ template: Template, _ object: inout CK_OBJECT_HANDLE
    ) throws(PKCS11Error) {
        var mechanism = CK_MECHANISM(
            mechanism: type.rawValue, pParameter: parameters.baseAddress, ulParameterLen: CK_ULONG(parameters.count))
        var derived: CK_OBJECT_HANDLE = 0
        try template.withAttributes { (attributes, count) throws(PKCS11Error) in
            try check(
                "C_DeriveKey", functions.C_DeriveKey!(handle, &mechanism, base.handle, attributes, count, &derived))
        }
        object = derived
    }

    /// Destroys a key in the token (`C_DestroyObject`): its handle and label name nothing afterwards.
    public func destroy(_ key: PKCS11SecretKey) throws(PKCS11Error) {
        try module.withSession(handle) { functions throws(PKCS11Error) in
            try check("C_DestroyObject", functions.C_DestroyObject!(handle, key.handle))
        }
    }

    // MARK: Using keys

    /// The AES-CMAC (RFC 4493, `CKM_AES_CMAC`) of `message` under `key`, computed inside the token: 16 bytes.
    public func cmac(_ message: [UInt8], key: PKCS11SecretKey) throws(PKCS11Error) -> [UInt8] {
        try module.withSession(handle) { functions throws(PKCS11Error) in
            var mechanism = CK_MECHANISM(
                mechanism: PKCS11Mechanism.aesCMAC.rawValue, pParameter: nil, ulParameterLen: 0)
            try check("C_SignInit", functions.C_SignInit!(handle, &mechanism, key.handle))
            var mac = [UInt8](repeating: 0, count: 16)
            var macLength = CK_ULONG(mac.count)
            // Never a null pointer, not even for the empty message: some modules (SoftHSM2) refuse one.
            var input = message.isEmpty ? [0] : message
            let answer = input.withUnsafeMutableBufferPointer { data in
                functions.C_Sign!(handle, data.baseAddress, CK_ULONG(message.count), &mac, &macLength)
            }
            try check("C_Sign", answer)
            return Array(mac.prefix(Int(macLength)))
        }
    }

    /// `key` wrapped under `wrappingKey` (`C_WrapKey`): the bytes that carry it to another token, which unwraps
    /// them under the same wrapping key. `key` must have been made to leave (`CKR_KEY_UNEXTRACTABLE` otherwise),
    /// under a trusted key when it was made `.underTrustedKeys` (`CKR_KEY_NOT_WRAPPABLE` otherwise); `wrappingKey`
    /// needs `.wrap`.
    public func wrap(_ key: PKCS11SecretKey, with wrappingKey: PKCS11SecretKey, _ wrapping: PKCS11KeyWrapping)
        throws(PKCS11Error) -> [UInt8]
    {
        try module.withSession(handle) { functions throws(PKCS11Error) in
            var mechanism = CK_MECHANISM(mechanism: wrapping.mechanism, pParameter: nil, ulParameterLen: 0)
            var length: CK_ULONG = 0
            try check(
                "C_WrapKey", functions.C_WrapKey!(handle, &mechanism, wrappingKey.handle, key.handle, nil, &length))
            var wrapped = [UInt8](repeating: 0, count: Int(length))
            try check(
                "C_WrapKey", functions.C_WrapKey!(handle, &mechanism, wrappingKey.handle, key.handle, &wrapped, &length)
            )
            return Array(wrapped.prefix(Int(length)))
        }
    }

    /// Unwraps `wrapped` (24 bytes: a wrapped AES-128 key) under `unwrappingKey` into a new AES-128 key in this
    /// token (`C_UnwrapKey`): sensitive, leaving it only as `export` says (by default never), used as `usage` says,
    /// with `id` as its `CKA_ID`, a session object when `onToken` is false. Altered bytes
    /// fail the wrapping's integrity check inside the token, and no key is made.
    public func unwrapAESKey(
        _ wrapped: [UInt8], with unwrappingKey: PKCS11SecretKey, _ wrapping: PKCS11KeyWrapping, label: String,
        usage: PKCS11KeyUsage, export: PKCS11KeyExport = .never, id: [UInt8]? = nil, onToken: Bool = true
    ) throws(PKCS11Error) -> PKCS11SecretKey {
        // A 16-byte key wraps to 24 bytes under both mechanisms (RFC 3394: exactly 16 bytes; RFC 5649: 1 to 16).
        guard wrapped.count == Self.keyBytes + 8 else {
            throw .invalidArgument("a wrapped AES-128 key has \(Self.keyBytes + 8) bytes, not \(wrapped.count)")
        }
        let template = Template.secretKey(label: label, usage: usage, export: export, onToken: onToken, id: id)
        return try module.withSession(handle) { functions throws(PKCS11Error) in
            var mechanism = CK_MECHANISM(mechanism: wrapping.mechanism, pParameter: nil, ulParameterLen: 0)
            var object: CK_OBJECT_HANDLE = 0
            var wrapped = wrapped
            try wrapped.withUnsafeMutableBufferPointer { (input) throws(PKCS11Error) in
                try template.withAttributes { (attributes, count) throws(PKCS11Error) in
                    try check(
                        "C_UnwrapKey",
                        functions.C_UnwrapKey!(
                            handle, &mechanism, unwrappingKey.handle, input.baseAddress, CK_ULONG(input.count),
                            attributes, count, &object))
                }
            }
            let key = PKCS11SecretKey(label: label, handle: object)
            // SoftHSM2 2.6 records no CKA_VALUE_LEN for an unwrapped key (0) and refuses one in the template
            // (CKR_ATTRIBUTE_READ_ONLY); the length of the wrapped bytes bounds it (checked before the call).
            let length = try readULong(functions, object, CK_ATTRIBUTE_TYPE(CKA_VALUE_LEN))
            guard length == CK_ULONG(Self.keyBytes) || length == 0 else {
                _ = functions.C_DestroyObject!(handle, object)
                throw .keyNotUsable(label: label, reason: "the unwrapped key is not an AES-128 key")
            }
            return key
        }
    }

    // MARK: Checks

    /// Asks the token for `key`'s value (`C_GetAttributeValue` on `CKA_VALUE`) and returns its refusal
    /// (`CKR_ATTRIBUTE_SENSITIVE` from a conforming token). Throws `.keyValueReadable` if the token hands the value
    /// out (the bytes are wiped, never returned).
    @discardableResult
    public func checkValueUnreadable(_ key: PKCS11SecretKey) throws(PKCS11Error) -> PKCS11ReturnCode {
        try module.withSession(handle) { functions throws(PKCS11Error) in
            var value = [UInt8](repeating: 0, count: 64)
            defer { value.withUnsafeMutableBytes { raw in for index in raw.indices { raw[index] = 0 } } }
            let answer = value.withUnsafeMutableBytes { raw in
                var attribute = CK_ATTRIBUTE(
                    type: CK_ATTRIBUTE_TYPE(CKA_VALUE), pValue: raw.baseAddress, ulValueLen: CK_ULONG(raw.count))
                let answer = functions.C_GetAttributeValue!(handle, key.handle, &attribute, 1)
                return (answer, attribute.ulValueLen)
            }
            let code = PKCS11ReturnCode(rawValue: answer.0)
            if code == .ok && answer.1 != CK_ULONG.max { throw .keyValueReadable(label: key.label) }
            guard code == .attributeSensitive || code == .ok else {
                throw .failed(function: "C_GetAttributeValue", code: code)
            }
            return code
        }
    }

    /// Whether the token offers `mechanism` (`C_GetMechanismList`).
    public func supports(_ mechanism: PKCS11Mechanism) throws(PKCS11Error) -> Bool {
        try module.withSession(handle) { functions throws(PKCS11Error) in
            var count: CK_ULONG = 0
            try check("C_GetMechanismList", functions.C_GetMechanismList!(slot, nil, &count))
            var list = [CK_MECHANISM_TYPE](repeating: 0, count: Int(count))
            try check("C_GetMechanismList", functions.C_GetMechanismList!(slot, &list, &count))
            return list.prefix(Int(count)).contains(mechanism.rawValue)
        }
    }

    // MARK: Objects

    /// Every secret key this session sees labelled `label` (all of them when nil), token and session objects, with
    /// no check of what they are: for a caller that must see duplicates (a step interrupted half-way) and for
    /// listing what a token holds. Finds at most `limit`.
    public func secretKeys(labelled label: String? = nil, limit: Int = 1024) throws(PKCS11Error)
        -> [PKCS11SecretKey]
    {
        try module.withSession(handle) { functions throws(PKCS11Error) in
            let template = Template()
            template.add(CK_ATTRIBUTE_TYPE(CKA_CLASS), CK_ULONG(CKO_SECRET_KEY))
            if let label { template.add(CK_ATTRIBUTE_TYPE(CKA_LABEL), label) }
            try template.withAttributes { (attributes, count) throws(PKCS11Error) in
                try check("C_FindObjectsInit", functions.C_FindObjectsInit!(handle, attributes, count))
            }
            var found = [CK_OBJECT_HANDLE](repeating: 0, count: max(limit, 1))
            var foundCount: CK_ULONG = 0
            let answer = functions.C_FindObjects!(handle, &found, CK_ULONG(found.count), &foundCount)
            try check("C_FindObjectsFinal", functions.C_FindObjectsFinal!(handle))
            try check("C_FindObjects", answer)
            var keys: [PKCS11SecretKey] = []
            for object in found.prefix(Int(foundCount)) {
                var name = label ?? ""
                if label == nil {
                    name = String(
                        decoding: try readBytes(functions, object, CK_ATTRIBUTE_TYPE(CKA_LABEL)), as: UTF8.self)
                }
                keys.append(PKCS11SecretKey(label: name, handle: object))
            }
            return keys
        }
    }

    /// `key`'s `CKA_ID` (empty when it has none).
    public func id(of key: PKCS11SecretKey) throws(PKCS11Error) -> [UInt8] {
        try module.withSession(handle) { functions throws(PKCS11Error) in
            try readBytes(functions, key.handle, CK_ATTRIBUTE_TYPE(CKA_ID))
        }
    }

    /// Whether `key` is a token object (`CKA_TOKEN`) rather than a session object.
    public func isOnToken(_ key: PKCS11SecretKey) throws(PKCS11Error) -> Bool {
        try module.withSession(handle) { functions throws(PKCS11Error) in
            try readBool(functions, key.handle, CK_ATTRIBUTE_TYPE(CKA_TOKEN))
        }
    }

    // MARK: Attributes

    /// An attribute of variable length (`CKA_LABEL`, `CKA_ID`): its length asked first, then its bytes. Never used
    /// on `CKA_VALUE`.
    private func readBytes(_ functions: CK_FUNCTION_LIST, _ object: CK_OBJECT_HANDLE, _ type: CK_ATTRIBUTE_TYPE)
        throws(PKCS11Error) -> [UInt8]
    {
        var attribute = CK_ATTRIBUTE(type: type, pValue: nil, ulValueLen: 0)
        try check("C_GetAttributeValue", functions.C_GetAttributeValue!(handle, object, &attribute, 1))
        guard attribute.ulValueLen != CK_ULONG.max, attribute.ulValueLen > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: Int(attribute.ulValueLen))
        let answer = bytes.withUnsafeMutableBytes { raw in
            attribute.pValue = raw.baseAddress
            attribute.ulValueLen = CK_ULONG(raw.count)
            return functions.C_GetAttributeValue!(handle, object, &attribute, 1)
        }
        try check("C_GetAttributeValue", answer)
        return Array(bytes.prefix(Int(attribute.ulValueLen)))
    }

    private func readULong(_ functions: CK_FUNCTION_LIST, _ object: CK_OBJECT_HANDLE, _ type: CK_ATTRIBUTE_TYPE)
        throws(PKCS11Error) -> CK_ULONG
    {
        try readFixed(functions, object, type, CK_ULONG(0))
    }

    private func readBool(_ functions: CK_FUNCTION_LIST, _ object: CK_OBJECT_HANDLE, _ type: CK_ATTRIBUTE_TYPE)
        throws(PKCS11Error) -> Bool
    {
        try readFixed(functions, object, type, CK_BBOOL(0)) != 0
    }

    /// An attribute of a fixed size (`CK_ULONG`, `CK_BBOOL`), read into `initial`'s type.
    private func readFixed<Value>(
        _ functions: CK_FUNCTION_LIST, _ object: CK_OBJECT_HANDLE, _ type: CK_ATTRIBUTE_TYPE, _ initial: Value
    ) throws(PKCS11Error) -> Value {
        var value = initial
        let answer = withUnsafeMutableBytes(of: &value) { raw in
            var attribute = CK_ATTRIBUTE(type: type, pValue: raw.baseAddress, ulValueLen: CK_ULONG(raw.count))
            return functions.C_GetAttributeValue!(handle, object, &attribute, 1)
        }
        try check("C_GetAttributeValue", answer)
        return value
    }
}
