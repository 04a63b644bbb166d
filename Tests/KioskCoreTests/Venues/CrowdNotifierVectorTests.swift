import Foundation
import KioskCore
import KioskOpenSSL
import KioskProto
import SwiftProtobuf
import Testing

/// SwissCovid and NotifyMe codes: `android-sdk-qr-url-parsing.json`, the canonicalisation hazard, the iOS SDK payload.
@Suite struct CrowdNotifierVectorTests {
    let crypto = OpenSSLCrypto()

    struct AndroidFile: Decodable {
        struct Case: Decodable {
            let url: String
            let host: String
            let expValid: Bool
            let expError: String?
        }
        let payloadBase64Url: String
        let payloadHex: String
        let cases: [Case]
    }

    static let android = try! VectorFiles.json(
        AndroidFile.self, "crowdnotifier/transcribed/android-sdk-qr-url-parsing.json")

    @Test(arguments: android.cases.indices)
    func androidSDKURLForms(_ index: Int) throws {
        let file = Self.android
        let vector = file.cases[index]
        let url = vector.url.replacingOccurrences(of: "<payload>", with: file.payloadBase64Url)
        let host = VenueCodeParser.CrowdNotifierHost(host: vector.host, format: .swissCovid, versions: 4...4)
        if vector.expValid {
            let venue = try #require(try VenueCodeParser.crowdNotifierVenue(url, host: host, crypto: crypto))
            #expect(venue.format == .swissCovid)
            #expect(venue.urlVersion == 4)
            #expect(venue.payloadVersion == 3)
            #expect(venue.name == "grr")
            #expect(venue.address == "")
            #expect(venue.startTimestamp == 1_621_871_435)
            #expect(venue.endTimestamp == 10_261_871_435)
            #expect(venue.cryptographicSeed?.count == 32)
            #expect(venue.publicKey?.count == 96)
            #expect(
                venue.swissCovid
                    == SwissCovidVenueData(
                        version: 1, venueType: 0, room: nil, checkoutWarningDelayMs: 28_800_000,
                        automaticCheckoutDelayMs: 43_200_000, reminderDelayOptionsMs: [60_000, 3_600_000, 7_200_000]))
            // The payload is canonical already, so the kiosk hashes exactly the scanned bytes.
            #expect(Hex.encode(venue.canonicalPayload) == file.payloadHex)
            let expectedId = try crypto.sha256(Array("CWA-GUID".utf8) + Hex.decode(file.payloadHex)!)
            #expect(venue.locationId == expectedId)
            #expect(venue.locationIdHash == (try crypto.sha256(expectedId)))
        } else if vector.expError == "InvalidQRCodeVersionException" {
            #expect(throws: VenueCodeError.unsupportedVersion(.swissCovid)) {
                try VenueCodeParser.crowdNotifierVenue(url, host: host, crypto: crypto)
            }
        } else {
            #expect(try VenueCodeParser.crowdNotifierVenue(url, host: host, crypto: crypto) == nil)
            #expect(throws: VenueCodeError.notAVenueCode) { try VenueCodeParser.parse(url, crypto: crypto) }
        }
    }

    @Test func swissCovidHostWithDefaultParser() throws {
        let url = "https://qr.swisscovid.ch?v=4#" + Self.android.payloadBase64Url
        let venue = try VenueCodeParser.parse(url, crypto: crypto)
        #expect(venue.format == .swissCovid)
        #expect(venue.swissCovid?.automaticCheckoutDelayMs == Int64(12 * 3_600_000))
        #expect(throws: VenueCodeError.unsupportedVersion(.swissCovid)) {
            try VenueCodeParser.parse("https://qr.swisscovid.ch?v=3#" + Self.android.payloadBase64Url, crypto: crypto)
        }
        // Padding is accepted too.
        let padded = url + String(repeating: "=", count: (4 - Self.android.payloadBase64Url.count % 4) % 4)
        #expect(try VenueCodeParser.parse(padded, crypto: crypto) == venue)
    }

    /// The SwissCovid web generator wrote `address: ""` explicitly (`1a 00`); the id is over the canonical bytes.
    @Test func canonicalisationHazard() throws {
        struct File: Decodable {
            struct Case: Decodable {
                let qrCodePayloadHex: String
                let qrCodePayloadBase64Url: String
            }
            // swift-format-ignore: AlwaysUseLowerCamelCase
            // The vector file's own key.
            let url_prefix: String
            let cases: [String: Case]
        }
        let file = try VectorFiles.json(File.self, "crowdnotifier/derived-canonicalization-hazard.json")
        let raw = try #require(file.cases["rawAsEmittedByProtobufjs"])
        let canonical = try #require(file.cases["canonicalProto3Reserialization"])
        let fromRaw = try VenueCodeParser.parse(file.url_prefix + raw.qrCodePayloadBase64Url, crypto: crypto)
        let fromCanonical = try VenueCodeParser.parse(
            file.url_prefix + canonical.qrCodePayloadBase64Url, crypto: crypto)
        #expect(Hex.encode(fromRaw.canonicalPayload) == canonical.qrCodePayloadHex)
        #expect(fromRaw.locationId == fromCanonical.locationId)
        #expect(
            fromRaw.locationId == (try crypto.sha256(Array("CWA-GUID".utf8) + Hex.decode(canonical.qrCodePayloadHex)!)))
        #expect(fromRaw.name == "Kiosk Test Venue")
        // SwissCovidLocationData with every default set explicitly, plus a fourth reminder beyond the first three.
        #expect(fromRaw.swissCovid?.checkoutWarningDelayMs == SwissCovidVenueData.defaultCheckoutWarningDelayMs)
        #expect(fromRaw.swissCovid?.automaticCheckoutDelayMs == SwissCovidVenueData.defaultAutomaticCheckoutDelayMs)
        #expect(fromRaw.swissCovid?.reminderDelayOptionsMs.count == 3)
    }

    /// The iOS SDK's v3 payload (with `crowdNotifierData.type = 1`), read as a NotifyMe v4 code.
    @Test func notifyMeV4() throws {
        struct File: Decodable {
            struct Case: Decodable {
                struct Venue: Decodable { let qrCodePayloadHex: String }
                let venueInfo: Venue
            }
            let userUploadInfoCase: Case
        }
        let file = try VectorFiles.json(File.self, "crowdnotifier/transcribed/ios-sdk-user-upload-info.json")
        let payload = Hex.decode(file.userUploadInfoCase.venueInfo.qrCodePayloadHex)!
        let url = "https://qr.notify-me.ch?v=4#" + PayloadEncoding.encodeBase64URL(payload)
        let venue = try VenueCodeParser.parse(url, crypto: crypto)
        #expect(venue.format == .notifyMe)
        #expect(venue.name == "Description")
        #expect(venue.address == "Address")
        #expect(venue.startTimestamp == 20000)
        #expect(venue.endTimestamp == 23602)
        #expect(venue.notifyMe == NotifyMeVenueData(venueType: 0, room: nil))
        #expect(venue.canonicalPayload == payload)
        #expect(venue.swissCovid == nil && venue.cwa == nil)
    }

    @Test func notifyMeCountryDataRoomAndType() throws {
        var location = Ch_Ubique_Notifyme_Sdk_Backend_Model_NotifyMeLocationData()
        location.version = 1
        location.type = .meetingRoom
        location.room = "Room 3"
        var payload = SwissCovid_QRCodePayload()
        payload.version = 3
        payload.locationData.version = 3
        payload.locationData.description_p = "Team meeting"
        payload.crowdNotifierData.version = 3
        payload.crowdNotifierData.cryptographicSeed = Data(repeating: 7, count: 32)
        payload.countryData = try location.serializedBytes()
        let url = "qr.notify-me.ch/?v=3#" + PayloadEncoding.encodeBase64URL(try payload.serializedBytes())
        let venue = try VenueCodeParser.parse(url, crypto: crypto)
        #expect(venue.notifyMe == NotifyMeVenueData(venueType: 1, room: "Room 3"))
        #expect(venue.notifyMe?.venueTypeLabel == "Meeting room")
    }

    /// NotifyMe `?v=2` codes carry a libcrowdnotifier v2 `QRCodeEntry` (times in milliseconds).
    @Test func notifyMeV2Entry() throws {
        var entry = CrowdnotifierV2_QRCodeEntry()
        entry.version = 2
        entry.data.name = "Cafeteria"
        entry.data.location = "Building B"
        entry.data.room = "Ground floor"
        entry.data.venueType = .cafeteria
        entry.data.notificationKey = Data(repeating: 1, count: 32)
        entry.data.validFrom = 1_620_140_045_000
        entry.data.validTo = 1_620_147_245_000
        entry.masterPublicKey = Data(repeating: 2, count: 96)
        let bytes: [UInt8] = try entry.serializedBytes()
        let venue = try VenueCodeParser.parse(
            "https://qr.notify-me.ch?v=2#" + PayloadEncoding.encodeBase64URL(bytes), crypto: crypto)
        #expect(venue.format == .notifyMe)
        #expect(venue.payloadVersion == 2)
        #expect(venue.name == "Cafeteria")
        #expect(venue.address == "Building B")
        #expect(venue.startTimestamp == 1_620_140_045)
        #expect(venue.endTimestamp == 1_620_147_245)
        #expect(venue.notifyMe == NotifyMeVenueData(venueType: 2, room: "Ground floor"))
        #expect(venue.cryptographicSeed == nil)
        #expect(venue.locationId == (try crypto.sha256(Array("CWA-GUID".utf8) + bytes)))
    }

    @Test func notifyMeV1IsAnUnsupportedVersion() throws {
        struct File: Decodable {
            struct QR: Decodable { let url: String }
            let qrStrings: [QR]
        }
        let file = try VectorFiles.json(File.self, "crowdnotifier/transcribed/ios-sdk-user-upload-info.json")
        #expect(file.qrStrings.count == 2)
        for qr in file.qrStrings {
            #expect(throws: VenueCodeError.unsupportedVersion(.notifyMe)) {
                try VenueCodeParser.parse(qr.url, crypto: crypto)
            }
        }
    }

    @Test func swissCovidCountryDataDefaults() {
        let empty = SwissCovidVenueData(
            version: 0, venueType: 0, room: "", rawCheckoutWarningDelayMs: 0,
            rawAutomaticCheckoutDelayMs: 0, rawReminderDelayOptionsMs: [0, -5])
        #expect(empty.checkoutWarningDelayMs == Int64(8 * 3_600_000))
        #expect(empty.automaticCheckoutDelayMs == Int64(12 * 3_600_000))
        #expect(empty.reminderDelayOptionsMs == [1_800_000, 3_600_000, 7_200_000])
        #expect(empty.room == nil)
        let inverted = SwissCovidVenueData(
            version: 1, venueType: 1, room: "A", rawCheckoutWarningDelayMs: 5_000,
            rawAutomaticCheckoutDelayMs: 4_000, rawReminderDelayOptionsMs: [9, 0, 8, 7, 6])
        #expect(inverted.checkoutWarningDelayMs == nil)
        #expect(inverted.reminderDelayOptionsMs == [9, 8, 7])
    }
}
