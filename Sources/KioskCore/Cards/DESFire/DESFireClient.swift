/// The kiosk's side of MIFARE DESFire EV1's native commands, over a `DESFireTransport`, with AES authentication (and
/// AuthenticateISO with a DES or 2K3DES key, for a factory-new card's master key) and EV1 secure messaging.
///
/// Every command is wrapped in ISO/IEC 7816-4 APDUs and cut into frames by `DESFireAPDU`; a response continued with
/// AF is asked for frame by frame and joined. After `authenticate(keyNumber:key:)` every command and every response
/// of the session passes through the session's `DESFireSecureChannel`, in order, whatever its communication mode:
/// a plain command still advances the IV through its CMAC, and the card's answer carries a CMAC over data ‖ status
/// (the MIFARE DESFire EV1 data sheet's rule for AES sessions; see `DESFireSecureChannel`). A file's data is sent
/// and read in plain, MAC'd or enciphered as its communication settings say (`DESFireCommunication`), given by the
/// caller, who knows the layout of the card.
///
/// The session ends — the channel is closed, its key and IV wiped — after any error (a status other than 00 and
/// AF, a transport error, a CMAC or CRC that does not verify, a malformed answer; not an argument refused before
/// anything was sent, `.invalidArgument` or `.notAuthenticated`), after SelectApplication and
/// AuthenticateAES (the card drops its authentication when either starts), after ChangeKey of the key the session
/// was opened with, and on `close()`. The card does the same, so the kiosk authenticates again.
///
/// Keys are `[UInt8]` given by the caller, who wipes them; every copy the client or the channel makes is wiped
/// with the cipher's `wipe` when done. RndA comes from the `CryptoProvider`'s random generator.
///
/// A client is used from one thread at a time (the reader's).
public final class DESFireClient {
    /// The longest answer the client joins from AF-continued frames (a 8 KB card's largest file, and its CRC).
    public static let maximumResponseLength = 8192 + 32

    private let transport: any DESFireTransport
    let crypto: any DESFireCrypto
    private var channel: DESFireSecureChannel?
    /// The key number the session was opened with, nil outside a session.
    public private(set) var authenticatedKeyNumber: UInt8?

    public init(transport: any DESFireTransport, crypto: any DESFireCrypto) {
        self.transport = transport
        self.crypto = crypto
    }

    deinit { close() }

    /// Whether a session is open.
    public var isAuthenticated: Bool { channel != nil }

    /// Ends the session: wipes the session key and the IV.
    public func close() {
        channel?.close()
        channel = nil
        authenticatedKeyNumber = nil
    }

    // MARK: - Authentication

    /// AuthenticateAES (AA) with `keyNumber` of the selected application (or of the card at the PICC level) and its
    /// AES-128 `key`. Opens a session; a card that does not hold the key answers AUTHENTICATION_ERROR, or proves
    /// nothing (`.secureMessaging(.authenticationFailed)`).
    public func authenticate(keyNumber: UInt8, key: [UInt8]) throws(DESFireCommandError) {
        try authenticate(keyNumber: keyNumber, key: .aes(key))
    }

    /// Authenticates with `keyNumber` and `key`: AuthenticateAES (AA) for an AES key, AuthenticateISO (1A) for a DES
    /// or 2K3DES one (a factory-new card's master key, `DESFireKey.factoryDefault`), whose session then runs EV1's
    /// secure messaging under triple DES. The card answers AUTHENTICATION_ERROR when the key is not of the kind it
    /// holds.
    public func authenticate(keyNumber: UInt8, key: DESFireKey) throws(DESFireCommandError) {
        close()
        guard keyNumber <= 0x0D else { throw .invalidArgument("key number") }
        var authentication: DESFireAuthentication
        do {
            authentication = try DESFireAuthentication(key: key, crypto: crypto)
        } catch {
            throw .secureMessaging(error)
        }
        var rndA: [UInt8]
        do {
            rndA = try crypto.randomBytes(count: authentication.blockSize)
        } catch {
            throw .secureMessaging(.crypto(error))
        }
        defer { crypto.wipe(&rndA) }
        let first = try frame(authentication.command, [keyNumber])
        guard first.status == DESFireAPDU.additionalFrame else { throw failure(status: first.status) }
        guard first.data.count == authentication.blockSize else { throw .malformedResponse("Authenticate") }
        var token: [UInt8]
        do {
            token = try authentication.answer(encryptedRndB: first.data, rndA: rndA)
        } catch {
            throw .secureMessaging(error)
        }
        defer { crypto.wipe(&token) }
        let second = try frame(DESFireAPDU.additionalFrame, token)
        guard second.status == DESFireStatus.operationOK.rawValue else { throw failure(status: second.status) }
        guard second.data.count == authentication.blockSize else { throw .malformedResponse("Authenticate") }
        do {
            channel = try authentication.finish(encryptedRndAPrime: second.data)
        } catch {
            throw .secureMessaging(error)
        }
        authenticatedKeyNumber = keyNumber
    }

    // MARK: - Running a command

    /// How the command's data is protected in a session.
    enum Protection {
        /// In plain; its CMAC only advances the IV.
        case plain
        /// With the first 8 bytes of its CMAC appended.
        case maced
        /// The data (not the header) enciphered with its CRC32.
        case enciphered
        /// ChangeKey's own cryptogram.
        case changeKey(newKey: [UInt8], version: UInt8, oldKey: [UInt8]?)

        init(_ communication: DESFireCommunication) {
            switch communication {
            case .plain: self = .plain
            case .maced: self = .maced
            case .enciphered: self = .enciphered
            }
        }
    }

    /// What the answer is in a session.
    enum Answer {
        /// Data and a CMAC (plain and MAC'd communication).
        case maced
        /// Enciphered data of this length with its CRC32.
        case enciphered(length: Int)
        /// Nothing: the command ended the session (ChangeKey of the session's own key).
        case endsSession
    }

    /// Runs one native command: `command` ‖ `header` ‖ `data`, protected in a session as `protection` says, and
    /// returns the answer's data, checked as `answer` says. Outside a session everything is plain, and a command
    /// whose protection or answer needs a session is refused before it is sent.
    func run(
        _ command: UInt8, header: [UInt8] = [], data: [UInt8] = [], protection: Protection = .plain,
        answer: Answer = .maced
    ) throws(DESFireCommandError) -> [UInt8] {
        do {
            return try runInSession(command, header: header, data: data, protection: protection, answer: answer)
        } catch {
            close()
            throw error
        }
    }

    private func runInSession(
        _ command: UInt8, header: [UInt8], data: [UInt8], protection: Protection, answer: Answer
    ) throws(DESFireCommandError) -> [UInt8] {
        guard channel != nil else {
            guard case .plain = protection, case .maced = answer else { throw .notAuthenticated }
            return try exchange(command, header + data)
        }
        var body: [UInt8]
        do throws(DESFireError) {
            switch protection {
            case .plain:
                _ = try channel!.macCommand([command] + header + data)
                body = header + data
            case .maced:
                body = Array(try channel!.macdCommand([command] + header + data).dropFirst())
            case .enciphered:
                body = Array(try channel!.encipherCommand(header: [command] + header, data: data).dropFirst())
            case .changeKey(let newKey, let version, let oldKey):
                guard let keyNumber = header.first else { throw DESFireError.invalidLength("ChangeKey header") }
                body = Array(
                    try channel!.changeKey(keyNumber: keyNumber, newKey: newKey, version: version, oldKey: oldKey)
                        .dropFirst())
            }
        } catch {
            throw .secureMessaging(error)
        }
        defer { crypto.wipe(&body) }
        var response = try exchange(command, body)
        defer { crypto.wipe(&response) }
        do {
            switch answer {
            case .maced:
                return try channel!.verifyResponse(response, status: DESFireStatus.operationOK.rawValue)
            case .enciphered(let length):
                return try channel!.decipherResponse(
                    response, status: DESFireStatus.operationOK.rawValue, length: length)
            case .endsSession:
                close()
                guard response.isEmpty else { throw DESFireCommandError.malformedResponse("ChangeKey") }
                return []
            }
        } catch let error as DESFireError {
            throw .secureMessaging(error)
        } catch let error as DESFireCommandError {
            throw error
        } catch {
            throw .malformedResponse("a response")
        }
    }

    /// Sends `command` with `body` in as many frames as it needs and joins the answer's frames. Returns the joined
    /// data of a command that ended with status 00; throws the status of one that did not.
    private func exchange(_ command: UInt8, _ body: [UInt8]) throws(DESFireCommandError) -> [UInt8] {
        let frames = DESFireAPDU.frames(body)
        var answer = try frame(command, frames[0])
        for next in frames.dropFirst() {
            guard answer.status == DESFireAPDU.additionalFrame else { throw failure(status: answer.status) }
            guard answer.data.isEmpty else { throw .malformedResponse("a frame of a long command") }
            answer = try frame(DESFireAPDU.additionalFrame, next)
        }
        var joined = answer.data
        while answer.status == DESFireAPDU.additionalFrame {
            answer = try frame(DESFireAPDU.additionalFrame, [])
            joined += answer.data
            guard joined.count <= Self.maximumResponseLength else {
                crypto.wipe(&joined)
                throw .malformedResponse("a response longer than any file")
            }
        }
        guard answer.status == DESFireStatus.operationOK.rawValue else {
            crypto.wipe(&joined)
            throw failure(status: answer.status)
        }
        return joined
    }

    /// One frame's APDU and its answer.
    private func frame(_ command: UInt8, _ data: [UInt8]) throws(DESFireCommandError) -> (
        data: [UInt8], status: UInt8
    ) {
        var apdu = DESFireAPDU.wrap(command: command, data: data)
        defer { crypto.wipe(&apdu) }
        let response: [UInt8]
        do {
            response = try transport.transmit(apdu)
        } catch {
            throw .transport(error)
        }
        return try DESFireAPDU.unwrap(response)
    }

    /// The error for a status that ends a command (00 where more was expected is a malformed answer).
    private func failure(status: UInt8) -> DESFireCommandError {
        let status = DESFireStatus(rawValue: status)
        if status == .operationOK || status == .additionalFrame { return .malformedResponse("an early end") }
        return .status(status)
    }
}
