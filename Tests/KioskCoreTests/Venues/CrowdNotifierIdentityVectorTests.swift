import Foundation
import KioskCore
import KioskOpenSSL
import Testing

/// CrowdNotifier's v3 key and identity derivation against every upstream vector in `Tests/Vectors/crowdnotifier`:
/// the Android/iOS SDK file (HKDF and identities), libcrowdnotifier's (with `preid`), the iOS SDK's user-upload case
/// (a real payload: `preId`, `timeKey` and the notification key per hour), and the Android URL-parsing payload and
/// the canonicalisation case (HKDF over what the kiosk hashes).
@Suite struct CrowdNotifierIdentityVectorTests {
    let crypto = OpenSSLCrypto()

    /// Signed (Java) or unsigned bytes alike.
    static func bytes(_ values: [Int]) -> [UInt8] { values.map { UInt8(truncatingIfNeeded: $0) } }

    struct SDKFile: Decodable {
        struct Identity: Decodable {
            let startOfInterval: Int64
            let qrCodePayload: [Int]
            let identity: [Int]
        }
        struct HKDF: Decodable {
            let qrCodePayload: [Int]
            let noncePreId: [Int]
            let nonceTimekey: [Int]
            let notificationKey: [Int]
        }
        let identityTestVector: [Identity]
        let hkdfTestVector: [HKDF]
    }

    static let sdk = try! VectorFiles.json(SDKFile.self, "crowdnotifier/crowd_notifier_test_vectors.json")

    @Test(arguments: sdk.hkdfTestVector.indices)
    func hkdfOfTheSDKVectors(_ index: Int) throws {
        let vector = Self.sdk.hkdfTestVector[index]
        let nonces = try CrowdNotifierVenueKeys.v3Nonces(payload: Self.bytes(vector.qrCodePayload), crypto: crypto)
        #expect(nonces.noncePreId == Self.bytes(vector.noncePreId))
        #expect(nonces.nonceTimekey == Self.bytes(vector.nonceTimekey))
        #expect(nonces.notificationKey == Self.bytes(vector.notificationKey))
    }

    @Test(arguments: sdk.identityTestVector.indices)
    func identitiesOfTheSDKVectors(_ index: Int) throws {
        let vector = Self.sdk.identityTestVector[index]
        let keys = try CrowdNotifierVenueKeys.v3(payload: Self.bytes(vector.qrCodePayload), crypto: crypto)
        #expect(try keys.identity(intervalStart: vector.startOfInterval, crypto: crypto) == Self.bytes(vector.identity))
        // One interval later is another identity.
        #expect(
            try keys.identity(intervalStart: vector.startOfInterval + 3600, crypto: crypto)
                != Self.bytes(vector.identity))
    }

    struct LibFile: Decodable {
        struct Identity: Decodable {
            let startOfInterval: Int64
            let qrCodePayloadHex: String
            let preidHex: String
            let identityHex: String
        }
        struct HKDF: Decodable {
            let qrCodePayload: [Int]
            let noncePreId: [Int]
            let nonceTimekey: [Int]
            let notificationKey: [Int]
        }
        let identityTestVectors: [Identity]
        let hkdfTestVectors: [HKDF]
    }

    static let lib = try! VectorFiles.json(
        LibFile.self, "crowdnotifier/transcribed/libcrowdnotifier-v3-testvectors.json")

    @Test(arguments: lib.identityTestVectors.indices)
    func preIdAndIdentityOfLibCrowdNotifier(_ index: Int) throws {
        let vector = Self.lib.identityTestVectors[index]
        let keys = try CrowdNotifierVenueKeys.v3(
            payload: try #require(Hex.decode(vector.qrCodePayloadHex)), crypto: crypto)
        #expect(Hex.encode(keys.preId) == vector.preidHex)
        #expect(
            Hex.encode(try keys.identity(intervalStart: vector.startOfInterval, crypto: crypto)) == vector.identityHex)
    }

    @Test(arguments: lib.hkdfTestVectors.indices)
    func hkdfOfLibCrowdNotifier(_ index: Int) throws {
        let vector = Self.lib.hkdfTestVectors[index]
        let nonces = try CrowdNotifierVenueKeys.v3Nonces(payload: Self.bytes(vector.qrCodePayload), crypto: crypto)
        #expect(nonces.noncePreId == Self.bytes(vector.noncePreId))
        #expect(nonces.nonceTimekey == Self.bytes(vector.nonceTimekey))
        #expect(nonces.notificationKey == Self.bytes(vector.notificationKey))
    }

    struct UploadFile: Decodable {
        struct Case: Decodable {
            struct Venue: Decodable {
                let qrCodePayloadHex: String
                let noncePreId: [Int]
                let nonceTimekey: [Int]
            }
            struct Info: Decodable {
                let preIdHex: String
                let timeKeyHex: String
                let notificationKeyHex: String
                let intervalStartMs: Int64
                let intervalEndMs: Int64
                // swift-format-ignore: AlwaysUseLowerCamelCase
                // The vector file's own key.
                let identityHex_computedByTranscription: String
            }
            let venueInfo: Venue
            let arrivalTimeMs: Int64
            let departureTimeMs: Int64
            let expUserUploadInfos: [Info]
        }
        let userUploadInfoCase: Case
    }

    /// A real v3 payload, read as a NotifyMe v4 code: the keys the parser keeps give the SDK's per-hour `preId`,
    /// `timeKey` and notification key, over exactly the hours the SDK lists for the visit.
    @Test func theIOSSDKUploadCaseThroughTheParser() throws {
        let file = try VectorFiles.json(UploadFile.self, "crowdnotifier/transcribed/ios-sdk-user-upload-info.json")
        let venueCase = file.userUploadInfoCase
        let payload = try #require(Hex.decode(venueCase.venueInfo.qrCodePayloadHex))
        let venue = try VenueCodeParser.parse(
            "https://qr.notify-me.ch?v=4#" + PayloadEncoding.encodeBase64URL(payload), crypto: crypto)
        let keys = try #require(venue.crowdNotifier)
        #expect(keys.scheme == .v3)
        #expect(keys.timeNonce == Self.bytes(venueCase.venueInfo.nonceTimekey))
        let nonces = try CrowdNotifierVenueKeys.v3Nonces(payload: payload, crypto: crypto)
        #expect(nonces.noncePreId == Self.bytes(venueCase.venueInfo.noncePreId))
        let hours = CrowdNotifierVenueKeys.hours(
            from: venueCase.arrivalTimeMs / 1000, to: venueCase.departureTimeMs / 1000)
        #expect(hours.count == venueCase.expUserUploadInfos.count)
        for (hour, info) in zip(hours, venueCase.expUserUploadInfos) {
            #expect(Hex.encode(keys.preId) == info.preIdHex)
            #expect(Hex.encode(keys.notificationKey) == info.notificationKeyHex)
            #expect(hour * 3600 * 1000 <= info.intervalStartMs && info.intervalEndMs <= (hour + 1) * 3600 * 1000)
            var time = [UInt8]()
            for shift in stride(from: 24, through: 0, by: -8) { time.append(UInt8(truncatingIfNeeded: 3600 >> shift)) }
            for shift in stride(from: 56, through: 0, by: -8) {
                time.append(UInt8(truncatingIfNeeded: (hour * 3600) >> Int64(shift)))
            }
            let timeKey = try crypto.sha256(Array("CN-TIMEKEY".utf8) + time + keys.timeNonce)
            #expect(Hex.encode(timeKey) == info.timeKeyHex)
            #expect(
                Hex.encode(try keys.identity(hour: hour, crypto: crypto)) == info.identityHex_computedByTranscription)
        }
    }

    /// The Android URL-parsing payload: HKDF over the bytes the kiosk hashes (canonical already).
    @Test func theAndroidURLPayloadsNonces() throws {
        struct File: Decodable {
            struct Derived: Decodable {
                let noncePreIdHex: String
                let nonceTimekeyHex: String
                let notificationKeyHex: String
            }
            let payloadBase64Url: String
            let derivedByTranscription: Derived
        }
        let file = try VectorFiles.json(File.self, "crowdnotifier/transcribed/android-sdk-qr-url-parsing.json")
        let venue = try VenueCodeParser.parse("https://qr.swisscovid.ch?v=4#" + file.payloadBase64Url, crypto: crypto)
        let nonces = try CrowdNotifierVenueKeys.v3Nonces(payload: venue.canonicalPayload, crypto: crypto)
        #expect(Hex.encode(nonces.noncePreId) == file.derivedByTranscription.noncePreIdHex)
        #expect(Hex.encode(nonces.nonceTimekey) == file.derivedByTranscription.nonceTimekeyHex)
        #expect(Hex.encode(nonces.notificationKey) == file.derivedByTranscription.notificationKeyHex)
        #expect(venue.crowdNotifier?.notificationKey == nonces.notificationKey)
    }

    /// A web-generated code with a non-canonical `address: ""`: the kiosk derives from the canonical bytes (the
    /// Android SDK's choice), so both encodings of the venue give the canonical case's identities.
    @Test func theCanonicalisationCaseDerivesFromTheCanonicalBytes() throws {
        struct File: Decodable {
            struct Case: Decodable {
                let qrCodePayloadBase64Url: String
                let noncePreIdHex: String
                let notificationKeyHex: String
                let intervalStart: Int64
                let preIdHex: String
                let identityHex: String
            }
            // swift-format-ignore: AlwaysUseLowerCamelCase
            // The vector file's own key.
            let url_prefix: String
            let cases: [String: Case]
        }
        let file = try VectorFiles.json(File.self, "crowdnotifier/derived-canonicalization-hazard.json")
        let canonical = try #require(file.cases["canonicalProto3Reserialization"])
        let raw = try #require(file.cases["rawAsEmittedByProtobufjs"])
        for encoded in [raw, canonical] {
            let venue = try VenueCodeParser.parse(file.url_prefix + encoded.qrCodePayloadBase64Url, crypto: crypto)
            let keys = try #require(venue.crowdNotifier)
            #expect(Hex.encode(keys.preId) == canonical.preIdHex)
            #expect(Hex.encode(keys.notificationKey) == canonical.notificationKeyHex)
            #expect(
                Hex.encode(try keys.identity(intervalStart: canonical.intervalStart, crypto: crypto))
                    == canonical.identityHex)
        }
        // The raw bytes would give other identities: the hazard the kiosk avoids.
        let rawKeys = try CrowdNotifierVenueKeys.v3(
            payload: try #require(PayloadEncoding.decodeBase64(Array(raw.qrCodePayloadBase64Url.utf8))), crypto: crypto)
        #expect(Hex.encode(rawKeys.preId) == raw.preIdHex)
        #expect(Hex.encode(try rawKeys.identity(intervalStart: raw.intervalStart, crypto: crypto)) == raw.identityHex)
    }
}
