public import Foundation
internal import KioskProto
internal import SwiftProtobuf

/// A CrowdNotifier problematic event as the kiosk keeps it: a venue's identity for one hour, published by a health
/// authority, and the data sealed under the venue's notification key that says when the event was.
///
/// Three published forms (`docs/PROTOCOL.md` §7):
/// - `v3`: SwissCovid's and the CrowdNotifier SDKs' `ProblematicEvent {version, identity, secretKeyForIdentity, day,
///   encryptedAssociatedData, cipherTextNonce}`; the sealed `AssociatedData {version, message, startTimestamp,
///   endTimestamp, countryData}` holds the window in seconds.
/// - `v2`: NotifyMe's v2 `ProblematicEvent {identity, secretKeyForIdentity, startTime, endTime, nonce, message}`: the
///   window in clear (milliseconds), `message` sealed.
/// - `notifyMeV3`: NotifyMe's v3 backend `ProblematicEvent {version, identity, secretKeyForIdentity, startTime,
///   endTime, encryptedAssociatedData, cipherTextNonce}` for v3 codes: the window in clear (milliseconds), the sealed
///   `AssociatedData {version, message, countryData}` only authenticates the event under the venue's key.
public struct CrowdNotifierEvent: Sendable, Hashable, Codable {
    public enum Form: UInt8, Sendable, Codable, CaseIterable {
        case v3 = 3
        case v2 = 2
        case notifyMeV3 = 4
    }

    public var form: Form
    /// 32 bytes.
    public var identity: [UInt8]
    /// 24 bytes (XSalsa20-Poly1305).
    public var nonce: [UInt8]
    /// v3 and NotifyMe v3: `encryptedAssociatedData`; v2: `message`.
    public var sealed: [UInt8]
    /// v2 and NotifyMe v3: the clear window in milliseconds (0 for v3).
    public var startMs: Int64
    public var endMs: Int64
    /// v3 only: `day`, the start of the UTC day of the event's hour (UNIX seconds). Published, not used in matching.
    public var day: Int64

    public init(
        form: Form, identity: [UInt8], nonce: [UInt8], sealed: [UInt8], startMs: Int64 = 0, endMs: Int64 = 0,
        day: Int64 = 0
    ) {
        self.form = form
        self.identity = identity
        self.nonce = nonce
        self.sealed = sealed
        self.startMs = startMs
        self.endMs = endMs
        self.day = day
    }

    /// Whether the event has the sizes matching needs (others are dropped when read).
    var isWellFormed: Bool {
        identity.count == 32 && nonce.count == SecretBoxSize.nonce && sealed.count >= SecretBoxSize.tag
    }

    /// The event's window in UNIX seconds, opened with the venue's notification key; `nil` when the data does not
    /// authenticate under the key (another venue, a changed byte) or does not parse, or the window is empty.
    public func openWindow(notificationKey: [UInt8], box: some SecretBox) -> (start: Int64, end: Int64)? {
        guard var plaintext = try? box.open(sealed, nonce: nonce, key: notificationKey) else { return nil }
        defer { Self.wipe(&plaintext) }
        switch form {
        case .v2: return clearWindow
        case .notifyMeV3:
            guard
                (try? NotifyMeV3_AssociatedData(
                    serializedBytes: plaintext, options: CrowdNotifierEventPackage.decodingOptions)) != nil
            else { return nil }
            return clearWindow
        case .v3:
            guard
                let data = try? SwissCovid_AssociatedData(
                    serializedBytes: plaintext, options: CrowdNotifierEventPackage.decodingOptions),
                data.endTimestamp > data.startTimestamp
            else { return nil }
            return (data.startTimestamp, data.endTimestamp)
        }
    }

    /// The clear window (milliseconds) in whole seconds, start rounded down and end up; nil when empty.
    private var clearWindow: (start: Int64, end: Int64)? {
        let start = CrowdNotifierVenueKeys.floorDivide(startMs, 1000)
        let end = -CrowdNotifierVenueKeys.floorDivide(-endMs, 1000)
        return end > start ? (start, end) : nil
    }

    /// Seals a v3 event's associated data (the authority's side, and the tests'): `AssociatedData {version 1,
    /// message, startTimestamp, endTimestamp}` under `keys.notificationKey` with `nonce`.
    public static func sealV3(
        keys: CrowdNotifierVenueKeys, hour: Int64, start: Int64, end: Int64, message: String = "", nonce: [UInt8],
        crypto: some CryptoProvider, box: some SecretBox
    ) throws(CryptoError) -> CrowdNotifierEvent {
        try sealV3(
            identity: try keys.identity(hour: hour, crypto: crypto), notificationKey: keys.notificationKey, hour: hour,
            start: start, end: end, message: message, nonce: nonce, box: box)
    }

    /// The same, for an identity already derived (server-based CrowdNotifier: from a visitor's upload).
    public static func sealV3(
        identity: [UInt8], notificationKey: [UInt8], hour: Int64, start: Int64, end: Int64, message: String = "",
        nonce: [UInt8], box: some SecretBox
    ) throws(CryptoError) -> CrowdNotifierEvent {
        var data = SwissCovid_AssociatedData()
        data.version = 1
        data.message = message
        data.startTimestamp = start
        data.endTimestamp = end
        var plaintext: [UInt8]
        do { plaintext = try data.serializedBytes() } catch { throw .libraryFailure("protobuf") }
        defer { wipe(&plaintext) }
        return CrowdNotifierEvent(
            form: .v3, identity: identity, nonce: nonce,
            sealed: try box.seal(plaintext, nonce: nonce, key: notificationKey),
            day: CrowdNotifierVenueKeys.floorDivide(hour * 3600, 86_400) * 86_400)
    }

    /// Seals a v2 event (the window in clear, `message` sealed), for NotifyMe v2 venues.
    public static func sealV2(
        keys: CrowdNotifierVenueKeys, hour: Int64, start: Int64, end: Int64, message: String = "", nonce: [UInt8],
        crypto: some CryptoProvider, box: some SecretBox
    ) throws(CryptoError) -> CrowdNotifierEvent {
        CrowdNotifierEvent(
            form: .v2, identity: try keys.identity(hour: hour, crypto: crypto), nonce: nonce,
            sealed: try box.seal(Array(message.utf8), nonce: nonce, key: keys.notificationKey),
            startMs: start * 1000, endMs: end * 1000)
    }

    /// Seals an event in NotifyMe's v3 backend form (the window in clear, `AssociatedData {version 1, message}`
    /// sealed), as a NotifyMe server publishes it for a v3 code.
    public static func sealNotifyMeV3(
        keys: CrowdNotifierVenueKeys, hour: Int64, start: Int64, end: Int64, message: String = "", nonce: [UInt8],
        crypto: some CryptoProvider, box: some SecretBox
    ) throws(CryptoError) -> CrowdNotifierEvent {
        var data = NotifyMeV3_AssociatedData()
        data.version = 1
        data.message = message
        var plaintext: [UInt8]
        do { plaintext = try data.serializedBytes() } catch { throw .libraryFailure("protobuf") }
        defer { wipe(&plaintext) }
        return CrowdNotifierEvent(
            form: .notifyMeV3, identity: try keys.identity(hour: hour, crypto: crypto), nonce: nonce,
            sealed: try box.seal(plaintext, nonce: nonce, key: keys.notificationKey), startMs: start * 1000,
            endMs: end * 1000)
    }

    static func wipe(_ bytes: inout [UInt8]) {
        for index in bytes.indices { bytes[index] = 0 }
    }
}

/// CKCN/1, the kiosk's signed wrapper of a published `ProblematicEventWrapper`:
/// `"CKCN" | u8 version=1 | u8 form (2, 3 or 4) | u64 createdAt (UNIX seconds) | ProblematicEventWrapper bytes`,
/// beside a detached DER ECDSA P-256 / SHA-256 signature over the whole file under the authority's CKPW/1 key. The
/// wrapper bytes are exactly what SwissCovid (form 3), NotifyMe v2 (form 2) or NotifyMe v3 (form 4) servers publish,
/// so an authority can re-sign another system's feed as it is.
public struct CrowdNotifierEventPackage: Sendable, Equatable {
    public static let magic = Array("CKCN".utf8)
    public static let version: UInt8 = 1
    static let headerLength = 14
    /// Larger files are refused before their signature is even checked (≈ 100,000 events).
    public static let maximumSize = 32 * 1024 * 1024

    public let form: CrowdNotifierEvent.Form
    public let createdAt: UInt64
    public let events: [CrowdNotifierEvent]

    public init(form: CrowdNotifierEvent.Form, createdAt: UInt64, events: [CrowdNotifierEvent]) {
        self.form = form
        self.createdAt = createdAt
        self.events = events.filter { $0.form == form }
    }

    /// Checks the signature first, then reads. Events of the wrong sizes are dropped; a file that is not a CKCN/1
    /// package, or whose wrapper does not parse, is refused.
    public static func verified(bytes: [UInt8], signature: [UInt8], verifier: some SignatureVerifier)
        throws(WarningPackageError) -> CrowdNotifierEventPackage
    {
        guard bytes.count <= maximumSize else { throw .oversized }
        guard !signature.isEmpty else { throw .unsigned }
        guard verifier.isValidSignature(signature, for: bytes) else { throw .badSignature }
        return try CrowdNotifierEventPackage(unverifiedBytes: bytes)
    }

    /// Parses without checking a signature (the authority's own tools and tests).
    public init(unverifiedBytes bytes: [UInt8]) throws(WarningPackageError) {
        var reader = ByteReader(bytes)
        guard reader.read(4) == Self.magic else { throw .notAPackage }
        guard reader.readInteger(UInt8.self) == Self.version else { throw .unsupportedVersion }
        guard let rawForm = reader.readInteger(UInt8.self), let createdAt = reader.readInteger(UInt64.self) else {
            throw .truncated
        }
        guard let form = CrowdNotifierEvent.Form(rawValue: rawForm) else { throw .malformed }
        let body = Array(bytes[Self.headerLength...])
        var events = [CrowdNotifierEvent]()
        do {
            switch form {
            case .v3:
                let wrapper = try SwissCovid_ProblematicEventWrapper(
                    serializedBytes: body, options: Self.decodingOptions)
                events = wrapper.events.map {
                    CrowdNotifierEvent(
                        form: .v3, identity: [UInt8]($0.identity), nonce: [UInt8]($0.cipherTextNonce),
                        sealed: [UInt8]($0.encryptedAssociatedData), day: $0.day)
                }
            case .v2:
                let wrapper = try Ch_Ubique_Notifyme_Sdk_Backend_Model_ProblematicEventWrapper(
                    serializedBytes: body, options: Self.decodingOptions)
                events = wrapper.events.map {
                    CrowdNotifierEvent(
                        form: .v2, identity: [UInt8]($0.identity), nonce: [UInt8]($0.nonce),
                        sealed: [UInt8]($0.message), startMs: $0.startTime, endMs: $0.endTime)
                }
            case .notifyMeV3:
                let wrapper = try NotifyMeV3_ProblematicEventWrapper(
                    serializedBytes: body, options: Self.decodingOptions)
                events = wrapper.events.map {
                    CrowdNotifierEvent(
                        form: .notifyMeV3, identity: [UInt8]($0.identity), nonce: [UInt8]($0.cipherTextNonce),
                        sealed: [UInt8]($0.encryptedAssociatedData), startMs: $0.startTime, endMs: $0.endTime)
                }
            }
        } catch {
            throw .malformed
        }
        self.init(form: form, createdAt: createdAt, events: events.filter(\.isWellFormed))
    }

    /// The file's bytes, as signed and published.
    public func bytes() throws(WarningPackageError) -> [UInt8] {
        var out = Self.magic
        out.append(Self.version)
        out.append(form.rawValue)
        out.appendBigEndian(createdAt)
        do {
            switch form {
            case .v3:
                var wrapper = SwissCovid_ProblematicEventWrapper()
                wrapper.version = 3
                wrapper.events = events.map { event in
                    var published = SwissCovid_ProblematicEvent()
                    published.version = 3
                    published.identity = Data(event.identity)
                    published.day = event.day
                    published.encryptedAssociatedData = Data(event.sealed)
                    published.cipherTextNonce = Data(event.nonce)
                    return published
                }
                out += try wrapper.serializedBytes() as [UInt8]
            case .v2:
                var wrapper = Ch_Ubique_Notifyme_Sdk_Backend_Model_ProblematicEventWrapper()
                wrapper.version = 2
                wrapper.events = events.map { event in
                    var published = Ch_Ubique_Notifyme_Sdk_Backend_Model_ProblematicEvent()
                    published.identity = Data(event.identity)
                    published.startTime = event.startMs
                    published.endTime = event.endMs
                    published.nonce = Data(event.nonce)
                    published.message = Data(event.sealed)
                    return published
                }
                out += try wrapper.serializedBytes() as [UInt8]
            case .notifyMeV3:
                var wrapper = NotifyMeV3_ProblematicEventWrapper()
                wrapper.version = 3
                wrapper.events = events.map { event in
                    var published = NotifyMeV3_ProblematicEvent()
                    published.version = 3
                    published.identity = Data(event.identity)
                    published.startTime = event.startMs
                    published.endTime = event.endMs
                    published.encryptedAssociatedData = Data(event.sealed)
                    published.cipherTextNonce = Data(event.nonce)
                    return published
                }
                out += try wrapper.serializedBytes() as [UInt8]
            }
        } catch {
            throw .malformed
        }
        return out
    }

    /// The published file name of each form, beside `index.json` under the authority's base address.
    public static func fileName(_ form: CrowdNotifierEvent.Form) -> String {
        switch form {
        case .v3: "crowdnotifier-v3.bin"
        case .v2: "crowdnotifier-v2.bin"
        case .notifyMeV3: "crowdnotifier-notifyme-v3.bin"
        }
    }

    static var decodingOptions: BinaryDecodingOptions {
        var options = BinaryDecodingOptions()
        options.messageDepthLimit = 8
        options.discardUnknownFields = true
        return options
    }
}

/// The events a kiosk keeps, by identity: a lookup per hour of a stay, never a scan of every event.
public struct CrowdNotifierEventIndex: Sendable {
    /// A 32-byte identity as four words: hashing it allocates nothing.
    struct IdentityKey: Hashable, Sendable {
        let a: UInt64, b: UInt64, c: UInt64, d: UInt64

        init?(_ bytes: [UInt8]) {
            guard bytes.count == 32 else { return nil }
            var words = [UInt64](repeating: 0, count: 4)
            for (offset, byte) in bytes.enumerated() { words[offset / 8] = words[offset / 8] << 8 | UInt64(byte) }
            (a, b, c, d) = (words[0], words[1], words[2], words[3])
        }
    }

    private var byIdentity: [IdentityKey: [CrowdNotifierEvent]] = [:]
    public private(set) var count = 0

    public init(_ events: [CrowdNotifierEvent] = []) {
        for event in events { add(event) }
    }

    /// Adds an event (a duplicate is kept once).
    public mutating func add(_ event: CrowdNotifierEvent) {
        guard event.isWellFormed, let key = IdentityKey(event.identity) else { return }
        if byIdentity[key]?.contains(event) == true { return }
        byIdentity[key, default: []].append(event)
        count += 1
    }

    /// The events published under `identity`.
    public func events(identity: [UInt8]) -> [CrowdNotifierEvent] {
        IdentityKey(identity).flatMap { byIdentity[$0] } ?? []
    }
}
