internal import CKioskPKCS11
internal import Synchronization

/// A PKCS #11 module (SoftHSM2, tpm2-pkcs11, OpenSC), loaded from its path and initialized: the kiosk's one way
/// into a token. The module is not linked: it is loaded (`dlopen`) here, its functions are called through the table
/// its `C_GetFunctionList` returns, and `close()` (or the last reference going away) calls `C_Finalize` and unloads
/// it.
///
/// Every call into the module, from every session, goes through one lock: a call is short (a CMAC, a derivation), a
/// hardware token serves one command at a time anyway, and no session is ever used by two threads at once. A module
/// can be initialized once per process (`C_Initialize` answers `CKR_CRYPTOKI_ALREADY_INITIALIZED` to a second
/// instance of the same module).
///
/// Nothing here logs: errors carry function names, `CKR_…` codes and labels, never a PIN or a key.
public final class PKCS11Module: Sendable {
    /// Where Debian's SoftHSM2 (`softhsm2`) installs its module.
    public static let softHSM2Path = "/usr/lib/softhsm/libsofthsm2.so"

    /// The module's path, as given.
    public let path: String

    struct Library: @unchecked Sendable {
        var library: kiosk_pkcs11_library
        var functions: CK_FUNCTION_LIST { library.functions.pointee }
    }

    struct State: ~Copyable {
        var library: Library?
        /// The sessions open now (`C_OpenSession` without `C_CloseSession` yet).
        var sessions: Set<CK_SESSION_HANDLE> = []
    }

    let state: Mutex<State>

    /// Loads the module at `path` and initializes it (`C_Initialize`, the operating system's locks allowed).
    public init(path: String) throws(PKCS11Error) {
        self.path = path
        var library = kiosk_pkcs11_library()
        let loaded = kiosk_pkcs11_load(&library, path)
        guard loaded == 0 else {
            if loaded > 0 {
                throw .failed(function: "C_GetFunctionList", code: PKCS11ReturnCode(rawValue: UInt(loaded)))
            }
            let reason = kiosk_pkcs11_load_error().map { String(cString: $0) } ?? "no C_GetFunctionList"
            throw .moduleNotLoadable(path: path, reason: reason)
        }
        var arguments = kiosk_pkcs11_initialize_arguments()
        let initialized = library.functions.pointee.C_Initialize!(&arguments)
        guard initialized == CKR_OK else {
            // Already initialized: another instance of this module in the process holds it; leave it to that one.
            kiosk_pkcs11_unload(&library)
            throw .failed(function: "C_Initialize", code: PKCS11ReturnCode(rawValue: initialized))
        }
        state = Mutex(State(library: Library(library: library)))
    }

    deinit {
        close()
    }

    /// Closes every session still open, finalizes the module (`C_Finalize`) and unloads it. Later calls through it
    /// or its sessions throw `.closed`. Calling it again does nothing.
    public func close() {
        state.withLock { state in
            guard var library = state.library else { return }
            let functions = library.functions
            for session in state.sessions {
                _ = functions.C_CloseSession!(session)
            }
            state.sessions = []
            _ = functions.C_Finalize!(nil)
            kiosk_pkcs11_unload(&library.library)
            state.library = nil
        }
    }

    /// The labels of the tokens present, in slot order.
    public func tokenLabels() throws(PKCS11Error) -> [String] {
        try withFunctions { functions throws(PKCS11Error) in
            try Self.tokens(functions).map(\.label)
        }
    }

    /// Opens a read-write session with the token labelled `tokenLabel` and logs `role` in with `pin`. A wrong PIN
    /// throws `.failed(function: "C_Login", code: .pinIncorrect)`, with the session closed. When the process is
    /// logged in to the token already (PKCS #11 keeps one login state per application and token, shared by its
    /// sessions), the new session shares it and the PIN is not checked again (`CKR_USER_ALREADY_LOGGED_IN`).
    public func openSession(tokenLabel: String, pin: PKCS11PIN, as role: PKCS11Role = .user) throws(PKCS11Error)
        -> PKCS11Session
    {
        let (slot, handle) = try state.withLock { state throws(PKCS11Error) -> (CK_SLOT_ID, CK_SESSION_HANDLE) in
            guard let library = state.library else { throw .closed }
            let functions = library.functions
            let matching = try Self.tokens(functions).filter { $0.label == tokenLabel }
            guard let slot = matching.first?.slot else {
                throw .tokenNotFound(label: tokenLabel, present: try Self.tokens(functions).map(\.label))
            }
            guard matching.count == 1 else { throw .tokenAmbiguous(label: tokenLabel, count: matching.count) }
            var handle: CK_SESSION_HANDLE = 0
            try check(
                "C_OpenSession", functions.C_OpenSession!(slot, CKF_SERIAL_SESSION | CKF_RW_SESSION, nil, nil, &handle))
            var pinBytes = pin.bytes
            let login = pinBytes.withUnsafeMutableBufferPointer { pointer in
                functions.C_Login!(
                    handle, role == .user ? CKU_USER : CKU_SO, pointer.baseAddress, CK_ULONG(pointer.count))
            }
            pinBytes.withUnsafeMutableBytes { raw in
                for index in raw.indices { raw[index] = 0 }
            }
            // Logged in already: the login state is the application's, shared by its sessions with the token.
            guard login == CKR_OK || login == PKCS11ReturnCode.userAlreadyLoggedIn.rawValue else {
                _ = functions.C_CloseSession!(handle)
                throw .failed(function: "C_Login", code: PKCS11ReturnCode(rawValue: login))
            }
            state.sessions.insert(handle)
            return (slot, handle)
        }
        return PKCS11Session(module: self, slot: slot, handle: handle, tokenLabel: tokenLabel)
    }

    /// Runs `body` with the module's functions, under the module's lock; `.closed` once the module is closed.
    func withFunctions<Result>(_ body: (CK_FUNCTION_LIST) throws(PKCS11Error) -> Result) throws(PKCS11Error)
        -> Result
    {
        try state.withLock { state throws(PKCS11Error) -> Result in
            guard let library = state.library else { throw .closed }
            return try body(library.functions)
        }
    }

    /// Runs `body` with the module's functions for an open session, under the module's lock.
    func withSession<Result>(
        _ handle: CK_SESSION_HANDLE, _ body: (CK_FUNCTION_LIST) throws(PKCS11Error) -> Result
    ) throws(PKCS11Error) -> Result {
        try state.withLock { state throws(PKCS11Error) -> Result in
            guard let library = state.library, state.sessions.contains(handle) else { throw .closed }
            return try body(library.functions)
        }
    }

    /// Logs out and closes a session; nothing when it is closed already.
    func closeSession(_ handle: CK_SESSION_HANDLE) {
        state.withLock { state in
            guard let library = state.library, state.sessions.remove(handle) != nil else { return }
            // Closing the application's last session with the token logs it out as well (PKCS #11 v2.40, 5.6).
            _ = library.functions.C_CloseSession!(handle)
        }
    }

    /// The slots with a token present, with the token's label (its 32 bytes, blank-padded, trimmed).
    private static func tokens(_ functions: CK_FUNCTION_LIST) throws(PKCS11Error) -> [(slot: CK_SLOT_ID, label: String)]
    {
        var count: CK_ULONG = 0
        try check("C_GetSlotList", functions.C_GetSlotList!(CK_BBOOL(CK_TRUE), nil, &count))
        var slots = [CK_SLOT_ID](repeating: 0, count: Int(count))
        try check("C_GetSlotList", functions.C_GetSlotList!(CK_BBOOL(CK_TRUE), &slots, &count))
        var found: [(slot: CK_SLOT_ID, label: String)] = []
        for slot in slots.prefix(Int(count)) {
            var info = CK_TOKEN_INFO()
            let answer = functions.C_GetTokenInfo!(slot, &info)
            // A token removed between the two calls is not there.
            if answer == PKCS11ReturnCode.tokenNotPresent.rawValue { continue }
            try check("C_GetTokenInfo", answer)
            // A slot with a token nobody has initialized yet (SoftHSM2 always offers one) has no label to match.
            guard info.flags & CKF_TOKEN_INITIALIZED != 0 else { continue }
            let label = withUnsafeBytes(of: info.label) { raw in
                String(decoding: raw, as: UTF8.self)
            }
            found.append((slot, String(label.reversed().drop { $0 == " " || $0 == "\0" }.reversed())))
        }
        return found
    }
}

/// Throws `.failed` unless `answer` is `CKR_OK`.
func check(_ function: String, _ answer: CK_RV) throws(PKCS11Error) {
    guard answer == CKR_OK else { throw .failed(function: function, code: PKCS11ReturnCode(rawValue: answer)) }
}
