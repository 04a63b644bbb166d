internal import CKioskPKCS11

/// A secret key kept in a token, found or made through a session: its label and its object handle, never its
/// value. The handle is the token's for as long as the module is initialized.
public struct PKCS11SecretKey: Sendable, Hashable, CustomStringConvertible {
    /// `CKA_LABEL`.
    public let label: String
    let handle: CK_OBJECT_HANDLE

    public var description: String { "secret key '\(label)'" }
}

/// What a key made by the kiosk may be used for; every other use is off (`CKA_ENCRYPT` and `CKA_DECRYPT` are always
/// false, so the token never encrypts or decrypts data under it for anyone).
public struct PKCS11KeyUsage: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// AES-CMAC (`CKA_SIGN`, `CKA_VERIFY`): the key diversification of NXP AN10922.
    public static let mac = PKCS11KeyUsage(rawValue: 1 << 0)
    /// New keys derived from it inside the token (`CKA_DERIVE`): the daily ratchet.
    public static let derive = PKCS11KeyUsage(rawValue: 1 << 1)
    /// Wrapping and unwrapping other keys (`CKA_WRAP`, `CKA_UNWRAP`): a transport key.
    public static let wrap = PKCS11KeyUsage(rawValue: 1 << 2)
}

/// Whether, and under which keys, a key made by the kiosk may leave its token wrapped (`C_WrapKey`). It never leaves
/// in the clear: every key is sensitive.
public enum PKCS11KeyExport: Sendable, Equatable {
    /// Never (`CKA_EXTRACTABLE` false): the key lives and dies in its token. A kiosk's keys, copies included.
    case never
    /// Only wrapped under a trusted key (`CKA_EXTRACTABLE` and `CKA_WRAP_WITH_TRUSTED` true, the latter fixed for
    /// good): under a wrapping key the token's security officer installed (`CKA_TRUSTED`), never under one the user
    /// made. A region's master key that is to be copied to other kiosks' tokens.
    case underTrustedKeys
    /// Wrapped under any wrapping key the user may use (`CKA_EXTRACTABLE` true).
    case underAnyWrappingKey
}

/// Who logs in to a session (`C_Login`'s user type).
public enum PKCS11Role: Sendable, Equatable {
    /// The token's user (`CKU_USER`): the kiosk.
    case user
    /// The token's security officer (`CKU_SO`): installs trusted wrapping keys (`importWrappingKey`), nothing else.
    case securityOfficer
}

/// How a new key is derived inside the token from an existing one (`C_DeriveKey`), its value never leaving it.
public enum PKCS11Derivation: Sendable, Equatable {
    /// `CKM_AES_ECB_ENCRYPT_DATA`: the new key's value is the base key's AES encryption of `data` (16 bytes, one
    /// block: an AES-128 key).
    case aesECBEncryptData([UInt8])
    /// `CKM_AES_CBC_ENCRYPT_DATA`: the base key's AES-CBC encryption of `data` (16 bytes) under `iv` (16 bytes).
    case aesCBCEncryptData(iv: [UInt8], data: [UInt8])
}

/// How a key is wrapped under another (`C_WrapKey`, `C_UnwrapKey`).
public enum PKCS11KeyWrapping: Sendable, Equatable {
    /// `CKM_AES_KEY_WRAP`: RFC 3394, its default initial value (a 16-byte key wraps to 24 bytes).
    case aesKeyWrap
    /// `CKM_AES_KEY_WRAP_PAD`: RFC 5649, for values of any length.
    case aesKeyWrapPad

    var mechanism: CK_MECHANISM_TYPE {
        switch self {
        case .aesKeyWrap: PKCS11Mechanism.aesKeyWrap.rawValue
        case .aesKeyWrapPad: PKCS11Mechanism.aesKeyWrapPad.rawValue
        }
    }
}

/// The mechanisms the kiosk uses, by their PKCS #11 v2.40 numbers (`CKM_…`).
public enum PKCS11Mechanism: UInt, Sendable, CaseIterable, CustomStringConvertible {
    case aesKeyGen = 0x1080
    case aesCMAC = 0x108a
    case aesECBEncryptData = 0x1104
    case aesCBCEncryptData = 0x1105
    case aesKeyWrap = 0x2109
    case aesKeyWrapPad = 0x210a

    public var description: String {
        switch self {
        case .aesKeyGen: "CKM_AES_KEY_GEN"
        case .aesCMAC: "CKM_AES_CMAC"
        case .aesECBEncryptData: "CKM_AES_ECB_ENCRYPT_DATA"
        case .aesCBCEncryptData: "CKM_AES_CBC_ENCRYPT_DATA"
        case .aesKeyWrap: "CKM_AES_KEY_WRAP"
        case .aesKeyWrapPad: "CKM_AES_KEY_WRAP_PAD"
        }
    }
}

/// A template of attributes for one call: each value is copied into memory of its own, which stays put while the
/// module reads it and is wiped and freed afterwards (a key's value imported in tests is one of them).
final class Template {
    private(set) var attributes: [CK_ATTRIBUTE] = []
    private var buffers: [UnsafeMutableRawBufferPointer] = []

    func add(_ type: CK_ATTRIBUTE_TYPE, _ value: Bool) {
        add(type, bytes: [value ? 1 : 0])
    }

    func add(_ type: CK_ATTRIBUTE_TYPE, _ value: CK_ULONG) {
        withUnsafeBytes(of: value) { add(type, raw: $0) }
    }

    func add(_ type: CK_ATTRIBUTE_TYPE, bytes: [UInt8]) {
        bytes.withUnsafeBytes { add(type, raw: $0) }
    }

    func add(_ type: CK_ATTRIBUTE_TYPE, _ text: String) {
        add(type, bytes: Array(text.utf8))
    }

    private func add(_ type: CK_ATTRIBUTE_TYPE, raw: UnsafeRawBufferPointer) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(raw.count, 1), alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        if raw.count > 0 { buffer.copyMemory(from: raw) }
        buffers.append(buffer)
        attributes.append(CK_ATTRIBUTE(type: type, pValue: buffer.baseAddress, ulValueLen: CK_ULONG(raw.count)))
    }

    /// Calls `body` with the attributes and their count.
    func withAttributes<Result>(_ body: (UnsafeMutablePointer<CK_ATTRIBUTE>, CK_ULONG) throws(PKCS11Error) -> Result)
        throws(PKCS11Error) -> Result
    {
        var attributes = self.attributes
        return try attributes.withUnsafeMutableBufferPointer { (pointer) throws(PKCS11Error) -> Result in
            try body(pointer.baseAddress!, CK_ULONG(pointer.count))
        }
    }

    deinit {
        for buffer in buffers {
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.deallocate()
        }
    }

    /// An AES secret key's attributes: sensitive, on the token, leaving it only as `export` says, used only as
    /// `usage` says; private (seen only by the logged-in user), unless `trusted`: a trusted wrapping key, which only
    /// the security officer may make, is a public object (`CKA_PRIVATE` false, its value still sensitive) so that
    /// the user's sessions can wrap under it.
    /// `onToken` false makes a session object (`CKA_TOKEN` false), gone when the session closes at the latest; `id`
    /// sets `CKA_ID`.
    static func secretKey(
        label: String, usage: PKCS11KeyUsage, export: PKCS11KeyExport, trusted: Bool = false, onToken: Bool = true,
        id: [UInt8]? = nil
    ) -> Template {
        let template = Template()
        template.add(CK_ATTRIBUTE_TYPE(CKA_CLASS), CK_ULONG(CKO_SECRET_KEY))
        template.add(CK_ATTRIBUTE_TYPE(CKA_KEY_TYPE), CK_ULONG(CKK_AES))
        template.add(CK_ATTRIBUTE_TYPE(CKA_TOKEN), onToken)
        if let id { template.add(CK_ATTRIBUTE_TYPE(CKA_ID), bytes: id) }
        template.add(CK_ATTRIBUTE_TYPE(CKA_PRIVATE), !trusted)
        if trusted { template.add(CK_ATTRIBUTE_TYPE(CKA_TRUSTED), true) }
        template.add(CK_ATTRIBUTE_TYPE(CKA_SENSITIVE), true)
        template.add(CK_ATTRIBUTE_TYPE(CKA_EXTRACTABLE), export != .never)
        if export == .underTrustedKeys { template.add(CK_ATTRIBUTE_TYPE(CKA_WRAP_WITH_TRUSTED), true) }
        template.add(CK_ATTRIBUTE_TYPE(CKA_LABEL), label)
        template.add(CK_ATTRIBUTE_TYPE(CKA_ENCRYPT), false)
        template.add(CK_ATTRIBUTE_TYPE(CKA_DECRYPT), false)
        template.add(CK_ATTRIBUTE_TYPE(CKA_SIGN), usage.contains(.mac))
        template.add(CK_ATTRIBUTE_TYPE(CKA_VERIFY), usage.contains(.mac))
        template.add(CK_ATTRIBUTE_TYPE(CKA_DERIVE), usage.contains(.derive))
        template.add(CK_ATTRIBUTE_TYPE(CKA_WRAP), usage.contains(.wrap))
        template.add(CK_ATTRIBUTE_TYPE(CKA_UNWRAP), usage.contains(.wrap))
        return template
    }
}
