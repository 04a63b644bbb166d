import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// Vendor-integrated codes, the specification's example, garbage of every kind, and the encoder's own venues.
@Suite struct VenueCodeParserTests {
    let crypto = OpenSSLCrypto()

    /// CWA's published example (`seeds/003_…`): Friseur, Berlin, type 5, 120 minutes.
    static let seedExample =
        "https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA"

    @Test func seedExample() throws {
        let venue = try VenueCodeParser.parse(Self.seedExample, crypto: crypto)
        #expect(venue.format == .cwa)
        #expect(venue.name == "Friseur")
        #expect(venue.address == "Berlin")
        #expect(venue.cwa == CWAVenueData(version: 1, type: 5, defaultCheckInLengthInMinutes: 120))
        #expect(venue.cwa?.typeLabel == "Craft business")
        #expect(venue.publicKey == CWAVenueEncoder.cwaPublicKey)
        #expect(venue.cryptographicSeed?.count == 16)
        #expect(venue.locationId?.count == 32)
        #expect(venue.startTimestamp == nil && venue.endTimestamp == nil)
        // Trailing slash and upper-case host are CWA's production regex too.
        let payload = Self.seedExample.split(separator: "#")[1]
        #expect(try VenueCodeParser.parse("HTTPS://E.CORONAWARN.APP/?v=1#" + payload, crypto: crypto) == venue)
        #expect(throws: VenueCodeError.unsupportedVersion(.cwa)) {
            try VenueCodeParser.parse("https://e.coronawarn.app?v=2#" + payload, crypto: crypto)
        }
        #expect("\(venue)" == "VenueCode(format: cwa)")
    }

    @Test(arguments: [
        "https://app.luca-app.de/webapp/386d0384-8aaa-41b6-93c2-d3399894d0ee#e30/CWA1/",
        "https://presence-tracing.app/386d0384-8aaa-41b6-93c2-d3399894d0ee#/CWA1/",
        "https://check-in.pt.app/386d0384-8aaa-41b6-93c2-d3399894d0ee#42/CWA1/",
    ])
    func vendorIntegrated(_ prefix: String) throws {
        let payload = String(Self.seedExample.split(separator: "#")[1])
        let venue = try VenueCodeParser.parse(prefix + payload, crypto: crypto)
        let plain = try VenueCodeParser.parse(Self.seedExample, crypto: crypto)
        #expect(venue.format == .cwaVendor)
        #expect(venue.locationId == plain.locationId)
        #expect(venue.vendorHost == URL(string: prefix)?.host)
        // Only luca is in CWA's production allowlist.
        let production = VenueCodeParser(cwaDescriptors: CWAQRCodeDescriptor.production)
        if prefix.contains("luca-app") {
            #expect(try production.parse(prefix + payload, crypto: crypto).locationId == plain.locationId)
        } else {
            #expect(throws: VenueCodeError.notAVenueCode) { try production.parse(prefix + payload, crypto: crypto) }
        }
        #expect(throws: VenueCodeError.unsupportedVersion(.cwaVendor)) {
            try VenueCodeParser.parse(prefix.replacingOccurrences(of: "CWA1", with: "CWA2") + payload, crypto: crypto)
        }
    }

    @Test(arguments: [
        "", " ", "hello", "https://", "https://e.coronawarn.app", "https://e.coronawarn.app?v=1#",
        "https://e.coronawarn.app?v=#abc", "https://e.coronawarn.app?v=1", "http://e.coronawarn.app?v=1#CAES",
        "https://e.coronawarn.app.evil.example?v=1#CAES", "https://qr.swisscovid.ch.evil.example?v=4#CAES",
        "https://qr.swisscovid.ch?v=4#", "https://example.org/#/CWA1/", "mailto:someone@example.org",
        "CKPB1:ABC", "\u{0}\u{0}\u{0}", "https://tac.gouv.fr?v=0#",
        "https://e.coronawarn.app?v=1#CAES\nEwgB",  // CWA's `.` does not match a line break

    ])
    func notVenueCodes(_ text: String) {
        let error = #expect(throws: VenueCodeError.self) { try VenueCodeParser.parse(text, crypto: crypto) }
        #expect(error?.cwaErrorCode == "INVALID_URL")
    }

    @Test(arguments: [
        "https://e.coronawarn.app?v=1#!!!!", "https://e.coronawarn.app?v=1#A", "https://e.coronawarn.app?v=1#AAAA=",
        "https://e.coronawarn.app?v=1#/////////w",
        "https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVy", "https://e.coronawarn.app?v=1#CgQI_w",
    ])
    func damagedCWAPayloads(_ text: String) {
        #expect(throws: VenueCodeError.undecodablePayload(.cwa)) { try VenueCodeParser.parse(text, crypto: crypto) }
    }

    @Test func damagedVendorData() throws {
        let venue = try VenueCodeParser.parse(Self.seedExample, crypto: crypto)
        var payload = venue.canonicalPayload
        // vendorData is the last field: `22 06 08 01 10 05 18 78`; make it a truncated varint.
        #expect(Array(payload.suffix(8)) == [0x22, 0x06, 0x08, 0x01, 0x10, 0x05, 0x18, 0x78])
        payload.replaceSubrange((payload.count - 8)..., with: [0x22, 0x02, 0x08, 0xff])
        #expect(throws: VenueCodeError.invalidVendorData(.cwa)) {
            try VenueCodeParser.parse(CWAVenueEncoder.url(payload: payload), crypto: crypto)
        }
    }

    @Test func overlongInputs() {
        #expect(throws: VenueCodeError.tooLong(byteCount: 100_000)) {
            try VenueCodeParser.parse(String(repeating: "A", count: 100_000), crypto: crypto)
        }
        let long = "https://e.coronawarn.app?v=1#" + String(repeating: "A", count: 8000)
        #expect(throws: VenueCodeError.self) { try VenueCodeParser.parse(long, crypto: crypto) }
    }

    /// Pseudo-random bytes, and mutations of valid codes, never crash the parser.
    @Test func randomInputsYieldVenueOrTypedError() throws {
        var generator = SplitMix64(seed: 0x5eed)
        let bases = [
            Self.seedExample, "https://qr.swisscovid.ch?v=4#", "https://tac.gouv.fr?v=0#",
            "https://qr.notify-me.ch?v=2#",
        ]
        var venues = 0
        for round in 0..<3000 {
            var bytes = Array(bases[round % bases.count].utf8)
            for _ in 0..<Int(generator.next() % 6) {
                let position = Int(generator.next() % UInt64(bytes.count + 1))
                let value = UInt8(truncatingIfNeeded: generator.next())
                switch generator.next() % 3 {
                case 0 where position < bytes.count: bytes[position] = value
                case 1: bytes.insert(value, at: position)
                default: if position < bytes.count { bytes.remove(at: position) }
                }
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let venue = try VenueCodeParser.parse(text, crypto: crypto)
                venues += 1
                #expect(venue.locationId == nil || venue.locationId?.count == 32)
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
        #expect(venues > 0)
    }

    // MARK: Encoder

    @Test func encoderMakesValidVenueWithFreshSeed() throws {
        let fields = CWAVenueEncoder.Fields(
            description: "Community centre", address: "Market Square 1", type: 8,
            defaultCheckInLengthInMinutes: 90)
        let first = try CWAVenueEncoder.makeVenue(fields, crypto: crypto)
        let second = try CWAVenueEncoder.makeVenue(fields, crypto: crypto)
        #expect(first.venue.name == "Community centre")
        #expect(first.venue.cwa == CWAVenueData(version: 1, type: 8, defaultCheckInLengthInMinutes: 90))
        #expect(first.venue.cryptographicSeed?.count == 16)
        #expect(first.venue.cryptographicSeed != second.venue.cryptographicSeed)
        #expect(first.venue.locationId != second.venue.locationId)
        #expect(first.url.hasPrefix("https://e.coronawarn.app?v=1#"))
        #expect(!first.url.dropFirst("https://e.coronawarn.app?v=1#".count).contains("="))
        #expect(try VenueCodeParser.parse(first.url, crypto: crypto) == first.venue)
    }

    @Test func encoderRejectsWhatScannersReject() {
        let bad = CWAVenueEncoder.Fields(description: "Two\nlines", address: "Somewhere", type: 1)
        #expect(throws: VenueCodeError.invalidDescription(.cwa, .lineBreak)) {
            try CWAVenueEncoder.makeVenue(bad, crypto: crypto)
        }
        let event = CWAVenueEncoder.Fields(
            description: "Concert", address: "Park", type: 9, startTimestamp: 200, endTimestamp: 100)
        #expect(throws: VenueCodeError.invalidTimestamps(.cwa)) { try CWAVenueEncoder.makeVenue(event, crypto: crypto) }
    }

    // MARK: Encodings

    @Test func base64AcceptsBothAlphabetsAndOptionalPadding() {
        #expect(PayloadEncoding.decodeBase64(Array("-_-_".utf8)) == [0xfb, 0xff, 0xbf])
        #expect(PayloadEncoding.decodeBase64(Array("+/+/".utf8)) == [0xfb, 0xff, 0xbf])
        #expect(PayloadEncoding.decodeBase64(Array("YQ".utf8)) == [0x61])
        #expect(PayloadEncoding.decodeBase64(Array("YQ==".utf8)) == [0x61])
        #expect(PayloadEncoding.decodeBase64(Array("YQ=".utf8)) == nil)
        #expect(PayloadEncoding.decodeBase64(Array("YQ===".utf8)) == nil)
        #expect(PayloadEncoding.decodeBase64(Array("Y=Q=".utf8)) == nil)
        #expect(PayloadEncoding.decodeBase64(Array("Y".utf8)) == nil)
        #expect(PayloadEncoding.decodeBase32(Array("MFRGG===".utf8)) == Array("abc".utf8))
        #expect(PayloadEncoding.decodeBase32(Array("mfrgg".utf8)) == Array("abc".utf8))
        #expect(PayloadEncoding.decodeBase32(Array("MFRG1".utf8)) == nil)
        #expect(PayloadEncoding.encodeBase64URL([0xfb, 0xff, 0xbf, 0x61]) == "-_-_YQ")
    }
}
