import Foundation
import KioskCore
import KioskOpenSSL
import Testing

/// CWA's own vectors: `trace-location-id.json`, `qr-code-url-parsing.json`, `qr-code-payload-validation.json`.
@Suite struct CWAVectorTests {
    let crypto = OpenSSLCrypto()

    // MARK: trace-location-id.json

    struct TraceLocationIdFile: Decodable {
        struct TraceLocation: Decodable {
            let type: Int
            let description: String
            let address: String
            let startTimestamp: UInt64?
            let endTimestamp: UInt64?
            let defaultCheckInLengthInMinutes: UInt32?
            let cryptographicSeedBase64: String
            let cnPublicKeyBase64: String
        }
        struct LocationIdCase: Decodable {
            let description: String
            let traceLocation: TraceLocation
            let qrCodePayloadBase64: String
            let qrCodePayloadBase64Url: String
            let expLocationIdHex: String
            let expLocationIdHashHex: String
            let expUrl: String?
        }
        struct HashCase: Decodable {
            let locationIdHex: String
            let expLocationIdHashHex: String
        }
        let locationIdCases: [LocationIdCase]
        let locationIdHashCases: [HashCase]
    }

    static let traceLocationId = try! VectorFiles.json(
        TraceLocationIdFile.self, "cwa/transcribed/trace-location-id.json")

    @Test func traceLocationIdFileIsComplete() {
        #expect(Self.traceLocationId.locationIdCases.count == 7)
        #expect(Self.traceLocationId.locationIdHashCases.count == 3)
    }

    /// The encoder builds CWA's exact payload bytes and URL from the venue fields; the ids match.
    @Test(arguments: traceLocationId.locationIdCases.indices)
    func encoderBuildsCWAPayload(_ index: Int) throws {
        let vector = Self.traceLocationId.locationIdCases[index]
        let location = vector.traceLocation
        let fields = CWAVenueEncoder.Fields(
            description: location.description, address: location.address, type: location.type,
            startTimestamp: location.startTimestamp, endTimestamp: location.endTimestamp,
            defaultCheckInLengthInMinutes: location.defaultCheckInLengthInMinutes)
        let payload = CWAVenueEncoder.payload(
            fields, cryptographicSeed: VectorFiles.base64(location.cryptographicSeedBase64),
            publicKey: VectorFiles.base64(location.cnPublicKeyBase64))
        #expect(payload == VectorFiles.base64(vector.qrCodePayloadBase64), "\(vector.description)")
        let url = CWAVenueEncoder.url(payload: payload)
        #expect(url == "https://e.coronawarn.app?v=1#" + vector.qrCodePayloadBase64Url)
        if let expUrl = vector.expUrl { #expect(url == expUrl) }
        let locationId = try crypto.sha256(Array("CWA-GUID".utf8) + payload)
        #expect(Hex.encode(locationId) == vector.expLocationIdHex)
        #expect(Hex.encode(try crypto.sha256(locationId)) == vector.expLocationIdHashHex)
    }

    /// The parser reads the same payloads back: ids and decoded fields. Seeds of these vectors are 4 bytes, so scan-time
    /// validation must reject them with INVALID_CRYPTO_SEED (CWA's ids are computed before that check).
    @Test(arguments: traceLocationId.locationIdCases.indices)
    func parserRejectsShortSeedOfIdVectors(_ index: Int) throws {
        let vector = Self.traceLocationId.locationIdCases[index]
        let url = "https://e.coronawarn.app?v=1#" + vector.qrCodePayloadBase64Url
        let seed = VectorFiles.base64(vector.traceLocation.cryptographicSeedBase64)
        if seed.count == 16 {
            let venue = try VenueCodeParser.parse(url, crypto: crypto)
            #expect(venue.locationId.map(Hex.encode) == vector.expLocationIdHex)
            #expect(venue.locationIdHash.map(Hex.encode) == vector.expLocationIdHashHex)
            #expect(venue.name == vector.traceLocation.description)
            #expect(venue.address == vector.traceLocation.address)
            #expect(venue.cwa?.type == vector.traceLocation.type)
            #expect(venue.cwa?.defaultCheckInLengthInMinutes == vector.traceLocation.defaultCheckInLengthInMinutes)
            #expect(venue.startTimestamp == vector.traceLocation.startTimestamp)
            #expect(venue.endTimestamp == vector.traceLocation.endTimestamp)
            #expect(venue.cryptographicSeed == seed)
        } else {
            #expect(throws: VenueCodeError.invalidCryptographicSeed(.cwa)) {
                try VenueCodeParser.parse(url, crypto: crypto)
            }
        }
    }

    @Test(arguments: traceLocationId.locationIdHashCases.map(\.locationIdHex))
    func locationIdHash(_ locationIdHex: String) throws {
        let vector = Self.traceLocationId.locationIdHashCases.first { $0.locationIdHex == locationIdHex }!
        #expect(Hex.encode(try crypto.sha256(Hex.decode(locationIdHex)!)) == vector.expLocationIdHashHex)
    }

    // MARK: qr-code-url-parsing.json

    struct Descriptor: Decodable, Equatable {
        let regexPattern: String
        let versionGroupIndex: Int
        let encodedPayloadGroupIndex: Int
        let payloadEncoding: String
    }
    struct URLParsingFile: Decodable {
        struct Decoded: Decodable {
            struct LocationData: Decodable {
                let description: String
                let address: String
                let startTimestamp: UInt64
                let endTimestamp: UInt64
            }
            struct CrowdNotifierData: Decodable {
                let publicKeyBase64: String
                let cryptographicSeedBase64: String
            }
            struct VendorData: Decodable {
                let version: UInt32
                let type: Int
                let defaultCheckInLengthInMinutes: UInt32
            }
            let version: UInt32
            let locationData: LocationData
            let crowdNotifierData: CrowdNotifierData
            let vendorData: VendorData
        }
        struct ValidURL: Decodable {
            let url: String
            let descriptors: [Descriptor]
            let expQrCodePayloadBase64: String
            let expDecoded: Decoded
            let expLocationIdBase64: String
            let locationIdOverRawBytesBase64: String?
        }
        struct InvalidURL: Decodable {
            let url: String
            let descriptors: [Descriptor]
            let expError: String
        }
        let productionDescriptors: [Descriptor]
        let validUrls: [ValidURL]
        let invalidUrls: [InvalidURL]
    }

    static let urlParsing = try! VectorFiles.json(URLParsingFile.self, "cwa/transcribed/qr-code-url-parsing.json")

    /// Maps a vector's regex descriptor onto the parser's closed set of shapes; fails on a regex the parser does not model.
    static func descriptor(_ vector: Descriptor) -> CWAQRCodeDescriptor? {
        let encoding = PayloadEncoding(rawValue: vector.payloadEncoding)
        let shapes: [CWAQRCodeDescriptor.Shape] = [
            .coronaWarnApp(allowsSlash: true), .coronaWarnApp(allowsSlash: false),
            .vendor(prefix: "https://app.luca-app.de/webapp/"),
        ]
        guard let encoding, vector.versionGroupIndex == 0, vector.encodedPayloadGroupIndex == 1 else { return nil }
        return shapes.map { CWAQRCodeDescriptor(shape: $0, encoding: encoding) }.first {
            $0.regexPattern == vector.regexPattern
        }
    }

    @Test func productionDescriptorsAreCWAs() {
        #expect(Self.urlParsing.productionDescriptors.count == CWAQRCodeDescriptor.production.count)
        #expect(Self.urlParsing.productionDescriptors.compactMap(Self.descriptor) == CWAQRCodeDescriptor.production)
        #expect(
            CWAQRCodeDescriptor.production.map(\.regexPattern)
                == Self.urlParsing.productionDescriptors.map(\.regexPattern))
    }

    @Test(arguments: urlParsing.validUrls.indices)
    func validURL(_ index: Int) throws {
        let vector = Self.urlParsing.validUrls[index]
        let descriptors = vector.descriptors.compactMap(Self.descriptor)
        try #require(descriptors.count == vector.descriptors.count)
        let expectedPayload = VectorFiles.base64(vector.expQrCodePayloadBase64)
        let seed = VectorFiles.base64(vector.expDecoded.crowdNotifierData.cryptographicSeedBase64)
        let parser = VenueCodeParser(cwaDescriptors: descriptors)
        if seed.count != 16 {
            // CWA computed these ids in unit tests that skip the scan-time seed check; the kiosk applies it.
            #expect(throws: VenueCodeError.invalidCryptographicSeed(.cwa)) {
                try parser.parse(vector.url, crypto: crypto)
            }
            let canonicalId = try crypto.sha256(Array("CWA-GUID".utf8) + expectedPayload)
            #expect(canonicalId == VectorFiles.base64(vector.expLocationIdBase64))
            return
        }
        let venue = try parser.parse(vector.url, crypto: crypto)
        let decoded = vector.expDecoded
        #expect(venue.format == .cwa)
        #expect(venue.payloadVersion == decoded.version)
        #expect(venue.name == decoded.locationData.description)
        #expect(venue.address == decoded.locationData.address)
        #expect((venue.startTimestamp ?? 0) == decoded.locationData.startTimestamp)
        #expect((venue.endTimestamp ?? 0) == decoded.locationData.endTimestamp)
        #expect(venue.publicKey == VectorFiles.base64(decoded.crowdNotifierData.publicKeyBase64))
        #expect(venue.cryptographicSeed == seed)
        #expect(
            venue.cwa
                == CWAVenueData(
                    version: decoded.vendorData.version, type: decoded.vendorData.type,
                    defaultCheckInLengthInMinutes: decoded.vendorData.defaultCheckInLengthInMinutes == 0
                        ? nil : decoded.vendorData.defaultCheckInLengthInMinutes))
        #expect(venue.locationId == VectorFiles.base64(vector.expLocationIdBase64))
        if let raw = vector.locationIdOverRawBytesBase64 {
            // The non-canonical case: hashing the raw bytes would give a different id.
            #expect(venue.locationId != VectorFiles.base64(raw))
            #expect(venue.canonicalPayload != expectedPayload)
        } else {
            #expect(venue.canonicalPayload == expectedPayload)
        }
        #expect(venue.locationIdHash == (try crypto.sha256(venue.locationId!)))
        // The kiosk's default descriptors read BASE64 codes too.
        if descriptors.allSatisfy({ $0.encoding == .base64 }) {
            #expect(try VenueCodeParser.parse(vector.url, crypto: crypto) == venue)
        }
    }

    @Test(arguments: urlParsing.invalidUrls.indices)
    func invalidURL(_ index: Int) throws {
        let vector = Self.urlParsing.invalidUrls[index]
        let descriptors = vector.descriptors.compactMap(Self.descriptor)
        try #require(descriptors.count == vector.descriptors.count)
        for parser in [VenueCodeParser(cwaDescriptors: descriptors), VenueCodeParser()] {
            let error = #expect(throws: VenueCodeError.self) { try parser.parse(vector.url, crypto: crypto) }
            if vector.expError.hasPrefix("INVALID_URL") {
                #expect(error?.cwaErrorCode == "INVALID_URL", "\(vector.url.prefix(40))")
            } else {
                // "Wrong_payload": iOS reports INVALID_VENDOR_DATA, Android a payload decoding failure.
                #expect(error == .undecodablePayload(.cwa))
                #expect(error?.cwaErrorCode == "INVALID_PAYLOAD")
            }
        }
    }

    // MARK: qr-code-payload-validation.json

    struct ValidationFile: Decodable {
        struct Case: Decodable {
            struct Fields: Decodable {
                let description: String
                let address: String
            }
            let source: String
            let fields: Fields
            let qrCodePayloadBase64Url: String
            let url: String
            let expResult: String
        }
        let errorMessagesEnglish: [String: String]
        let cases: [Case]
    }

    static let validation = try! VectorFiles.json(
        ValidationFile.self, "cwa/transcribed/qr-code-payload-validation.json")

    @Test(arguments: validation.cases.indices)
    func payloadValidation(_ index: Int) throws {
        let vector = Self.validation.cases[index]
        #expect(vector.url == "https://e.coronawarn.app?v=1#" + vector.qrCodePayloadBase64Url)
        if vector.expResult == "VALID" {
            let venue = try VenueCodeParser.parse(vector.url, crypto: crypto)
            #expect(venue.name == vector.fields.description)
            #expect(venue.address == vector.fields.address)
            #expect(venue.cryptographicSeed?.count == 16)
        } else {
            let error = #expect(throws: VenueCodeError.self) { try VenueCodeParser.parse(vector.url, crypto: crypto) }
            #expect(error?.cwaErrorCode == vector.expResult, "\(vector.source)")
            #expect(error?.cwaAppMessage == Self.validation.errorMessagesEnglish[vector.expResult])
            // The field worker's message names the problem and never repeats the venue's text.
            let message = error?.message ?? ""
            #expect(message.contains("CWA") || message.contains("Corona-Warn-App"))
            if !vector.fields.description.isEmpty { #expect(!message.contains(vector.fields.description)) }
            if !vector.fields.address.isEmpty { #expect(!message.contains(vector.fields.address)) }
        }
    }

    @Test func everyCWAErrorMessageIsKnown() {
        let errors: [VenueCodeError] = [
            .notAVenueCode, .undecodablePayload(.cwa), .invalidVendorData(.cwa), .invalidDescription(.cwa, .empty),
            .invalidAddress(.cwa, .lineBreak), .invalidCryptographicSeed(.cwa), .invalidTimestamps(.cwa),
        ]
        #expect(Set(errors.compactMap(\.cwaErrorCode)) == Set(Self.validation.errorMessagesEnglish.keys))
        for error in errors {
            #expect(error.cwaAppMessage == Self.validation.errorMessagesEnglish[error.cwaErrorCode!])
        }
    }
}
