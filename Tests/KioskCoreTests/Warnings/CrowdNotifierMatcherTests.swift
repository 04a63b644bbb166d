import Foundation
import KioskOpenSSL
import KioskSimulation
import KioskSodium
import Testing

@testable import KioskCore

/// Matching CrowdNotifier problematic events at a tap: the venue's keys travel sealed with the stay, each hour's
/// identity finds the venue's events, the notification key opens them and the window must overlap the stay.
@Suite struct CrowdNotifierMatcherTests {
    let crypto = OpenSSLCrypto()
    let box = SodiumSecretBox()

    /// The Android SDK's SwissCovid payload (`android-sdk-qr-url-parsing.json`).
    func swissCovidVenue() throws -> VenueCode {
        struct File: Decodable { let payloadBase64Url: String }
        let file = try VectorFiles.json(File.self, "crowdnotifier/transcribed/android-sdk-qr-url-parsing.json")
        return try VenueCodeParser.parse("https://qr.swisscovid.ch?v=4#" + file.payloadBase64Url, crypto: crypto)
    }

    /// A NotifyMe v2 venue: a libcrowdnotifier v2 `QRCodeEntry` with a notification key and both nonces.
    static func notifyMeV2Code(seed: UInt8) -> String {
        var content: [UInt8] = [0x0a, 0x05] + Array("Hall\(seed % 10)".utf8)
        content += [0x2a, 0x20] + [UInt8](repeating: seed, count: 32)
        var entry: [UInt8] = [0x08, 0x02, 0x12, UInt8(content.count)] + content
        let proof: [UInt8] =
            [0x0a, 0x20] + [UInt8](repeating: seed &+ 1, count: 32) + [0x12, 0x20]
            + [UInt8](repeating: seed &+ 2, count: 32)
        entry += [0x22, UInt8(proof.count)] + proof
        return "https://qr.notify-me.ch?v=2#" + PayloadEncoding.encodeBase64URL(entry)
    }

    @Test func stayCodingKeepsTheKeysAndLeavesOtherStaysAsTheyWere() throws {
        let keys = try #require(try swissCovidVenue().crowdNotifier)
        let id = try StayID.random(using: crypto)
        var stay = Stay(
            id: id, locationId: [1, 2, 3], venueDescription: "Hall", venueAddress: "",
            start: Date(timeIntervalSince1970: 1_790_000_000), latestEnd: Date(timeIntervalSince1970: 1_790_003_600))
        let plain = StayCoding.encode(stay)
        #expect(plain.first == 1)
        stay.crowdNotifier = keys
        let withKeys = StayCoding.encode(stay)
        #expect(withKeys.first == 2)
        #expect(StayCoding.decode(withKeys, id: id) == stay)
        stay.reported = true
        #expect(StayCoding.decode(StayCoding.encode(stay), id: id) == stay)
        // A version-1 stay reads as before, without keys; a truncated version-2 one does not read.
        #expect(StayCoding.decode(plain, id: id)?.crowdNotifier == nil)
        #expect(StayCoding.decode(Array(withKeys.dropLast()), id: id) == nil)
    }

    @Test func aV2CodeGivesV2KeysByTheLibCrowdNotifierFormula() throws {
        let venue = try VenueCodeParser.parse(Self.notifyMeV2Code(seed: 7), crypto: crypto)
        let keys = try #require(venue.crowdNotifier)
        #expect(keys.scheme == .v2)
        #expect(keys.notificationKey == [UInt8](repeating: 7, count: 32))
        let content: [UInt8] = [0x0a, 0x05] + Array("Hall7".utf8) + [0x2a, 0x20] + [UInt8](repeating: 7, count: 32)
        let preId = try crypto.sha256(content + [UInt8](repeating: 8, count: 32))
        #expect(keys.preId == preId)
        let expected = try crypto.sha256(preId + [UInt8](repeating: 9, count: 32) + Array("497222".utf8))
        #expect(try keys.identity(hour: 497_222, crypto: crypto) == expected)
    }

    func event(
        _ keys: CrowdNotifierVenueKeys, form: CrowdNotifierEvent.Form, hour: Int64, start: Int64, end: Int64
    ) throws -> CrowdNotifierEvent {
        let nonce = try crypto.randomBytes(count: 24)
        switch form {
        case .v3:
            return try CrowdNotifierEvent.sealV3(
                keys: keys, hour: hour, start: start, end: end, nonce: nonce, crypto: crypto, box: box)
        case .v2:
            return try CrowdNotifierEvent.sealV2(
                keys: keys, hour: hour, start: start, end: end, nonce: nonce, crypto: crypto, box: box)
        case .notifyMeV3:
            return try CrowdNotifierEvent.sealNotifyMeV3(
                keys: keys, hour: hour, start: start, end: end, nonce: nonce, crypto: crypto, box: box)
        }
    }

    /// Each published form (SwissCovid's v3, NotifyMe v2, NotifyMe's own v3 backend layout) warns the overlapping
    /// stay of its venue and nothing else.
    @Test(arguments: CrowdNotifierEvent.Form.allCases)
    func anOverlappingEventWarnsAndNothingElseDoes(_ form: CrowdNotifierEvent.Form) throws {
        let keys = try #require(
            form != .v2
                ? try swissCovidVenue().crowdNotifier
                : try VenueCodeParser.parse(Self.notifyMeV2Code(seed: 3), crypto: crypto).crowdNotifier)
        let other = try #require(try VenueCodeParser.parse(Self.notifyMeV2Code(seed: 4), crypto: crypto).crowdNotifier)
        let hour: Int64 = 497_222  // 2026-09-21 14:00 UTC
        let start = hour * 3600 + 20 * 60
        let stay = MatchableStay(
            id: "a", locationId: [], start: start, end: start + 80 * 60, crowdNotifier: keys)
        let match = try event(keys, form: form, hour: hour, start: hour * 3600, end: hour * 3600 + 3600)
        let result = CrowdNotifierMatcher.match(
            stays: [stay], index: CrowdNotifierEventIndex([match]), crypto: crypto, box: box)
        #expect(result.matches.map(\.stayId) == ["a"])
        #expect(result.matches.first?.overlapMinutes == 40)
        #expect(result.riskLevelByDay == [hour / 24: 2])

        // The venue's event two hours later, the same hour at another venue, a changed byte, another key: nothing.
        let later = try event(keys, form: form, hour: hour + 2, start: (hour + 2) * 3600, end: (hour + 3) * 3600)
        let elsewhere = try event(other, form: .v2, hour: hour, start: hour * 3600, end: hour * 3600 + 3600)
        var tampered = match
        tampered.sealed[tampered.sealed.count - 1] ^= 1
        // Same identity, but the window before the stay began.
        let before = try event(keys, form: form, hour: hour, start: hour * 3600, end: hour * 3600 + 20 * 60)
        for events in [[later], [elsewhere], [tampered], [before]] {
            let none = CrowdNotifierMatcher.match(
                stays: [stay], index: CrowdNotifierEventIndex(events), crypto: crypto, box: box)
            #expect(none.matches.isEmpty)
        }
        // A stay at a CWA venue (no keys) is never matched.
        let cwaStay = MatchableStay(id: "b", locationId: [], start: start, end: start + 3600)
        #expect(
            CrowdNotifierMatcher.match(
                stays: [cwaStay], index: CrowdNotifierEventIndex([match]), crypto: crypto, box: box
            ).matches.isEmpty)
    }

    /// A desk where a card checked in at a SwissCovid venue at `start` (UNIX seconds) for an hour, two hours ago.
    struct CheckedIn {
        let desk: CheckInDesk
        let clock: ManualClockSource
        let venue: StayVenue
        let keys: CrowdNotifierVenueKeys
        let card: CardSecret
    }

    func checkedIn(at start: Int64) throws -> CheckedIn {
        let code = try swissCovidVenue()
        let desk = CheckInDesk(store: InMemoryCheckInStore(), crypto: crypto)
        let clock = ManualClockSource(now: Date(timeIntervalSince1970: Double(start)))
        let venue = StayVenue(
            locationId: try #require(code.locationId), description: "Hall", address: "",
            autoCheckout: AutoCheckoutRule(maximumStay: 3600), crowdNotifier: code.crowdNotifier)
        let card = try CardSecret.generate(kind: .visitor, crypto: crypto)
        _ = desk.tap(card, at: venue, clock: clock.read())
        clock.advance(by: 7200)
        return CheckedIn(desk: desk, clock: clock, venue: venue, keys: try #require(code.crowdNotifier), card: card)
    }

    /// The notice `card` gets at a later tap, its stays matched against `index`, its days in `zone`.
    func notice(
        _ checkedIn: CheckedIn, for card: CardSecret, index: CrowdNotifierEventIndex,
        zone: VenueZone = VenueZone(TimeZone(identifier: "UTC")!)
    ) async throws -> WarningNotice? {
        let crypto = self.crypto
        let box = self.box
        return try await checkedIn.desk.warningNotice(for: card, clock: checkedIn.clock.read(), zone: zone) { stays in
            let result = CrowdNotifierMatcher.match(stays: stays, index: index, crypto: crypto, box: box)
            return result.matches.isEmpty ? nil : result
        }
    }

    /// The keys go in with the stay at check-in, sealed; at a later tap the stay opens with them and matches.
    @Test func theKeysTravelSealedWithTheStayFromTheTapToTheMatch() async throws {
        let there = try checkedIn(at: 1_790_000_000)
        let hour: Int64 = 1_790_000_000 / 3600
        let index = CrowdNotifierEventIndex([
            try event(there.keys, form: .v3, hour: hour, start: hour * 3600, end: hour * 3600 + 3600)
        ])
        let notice = try await notice(there, for: there.card, index: index)
        #expect(notice?.exposureDays == [1_790_000_000 / 86_400])
        #expect(notice?.isHighRisk == true)
        // A card that was never there sees nothing.
        let stranger = try CardSecret.generate(kind: .visitor, crypto: crypto)
        _ = there.desk.tap(stranger, at: there.venue, clock: there.clock.read())
        #expect(try await self.notice(there, for: stranger, index: index) == nil)
    }

    /// A warning's days are the venue's dates: a stay from 00:30 to 01:30 in Rome (23:30–00:30 UTC, over two UTC
    /// days) is shown on the one date the holder was there, not a day early.
    @Test func aWarningsDaysAreTheVenuesDates() async throws {
        // 2026-11-28 23:30 UTC: 00:30 on Sunday 29 November in Rome.
        let start: Int64 = 1_795_908_600
        let there = try checkedIn(at: start)
        let hours = [start / 3600, start / 3600 + 1]
        let index = CrowdNotifierEventIndex(
            try hours.map { try event(there.keys, form: .v3, hour: $0, start: $0 * 3600, end: $0 * 3600 + 3600) })
        let sunday: Int64 = 1_795_910_400 / 86_400  // 2026-11-29
        let rome = try await notice(
            there, for: there.card, index: index, zone: VenueZone(TimeZone(identifier: "Europe/Rome")!))
        #expect(rome?.exposureDays == [sunday], "\(rome?.exposureDays ?? [])")
        // In UTC the same stay lies on two dates.
        let utc = try await notice(there, for: there.card, index: index)
        #expect(utc?.exposureDays == [sunday - 1, sunday], "\(utc?.exposureDays ?? [])")
    }

    @Test func aSignedPackageOfEitherFormReadsBackAndAnythingElseIsRefused() throws {
        let keys = try #require(try swissCovidVenue().crowdNotifier)
        let hour: Int64 = 497_222
        let events = try (0..<3).map { offset in
            try event(keys, form: .v3, hour: hour + offset, start: hour * 3600, end: (hour + 3) * 3600)
        }
        let package = CrowdNotifierEventPackage(form: .v3, createdAt: 1_790_000_000, events: events)
        let bytes = try package.bytes()
        #expect(try CrowdNotifierEventPackage(unverifiedBytes: bytes) == package)
        let signer = try ECDSAPrivateKey()
        let signature = try signer.signature(for: bytes)
        let verifier = try signer.publicKey()
        #expect(
            try CrowdNotifierEventPackage.verified(bytes: bytes, signature: signature, verifier: verifier) == package)
        let stranger = try ECDSAPrivateKey()
        #expect(throws: WarningPackageError.badSignature) {
            try CrowdNotifierEventPackage.verified(
                bytes: bytes, signature: try stranger.signature(for: bytes), verifier: verifier)
        }
        var changed = bytes
        changed[changed.count - 1] ^= 1
        #expect(throws: WarningPackageError.badSignature) {
            try CrowdNotifierEventPackage.verified(bytes: changed, signature: signature, verifier: verifier)
        }
        #expect(throws: WarningPackageError.unsigned) {
            try CrowdNotifierEventPackage.verified(bytes: bytes, signature: [], verifier: verifier)
        }
        let v2 = CrowdNotifierEventPackage(
            form: .v2, createdAt: 1,
            events: [try event(keys, form: .v2, hour: hour, start: hour * 3600, end: hour * 3600 + 60)])
        #expect(try CrowdNotifierEventPackage(unverifiedBytes: try v2.bytes()) == v2)
        // NotifyMe's v3 backend layout: its own file name, and the form byte decides how the wrapper is read.
        let notifyMe = CrowdNotifierEventPackage(
            form: .notifyMeV3, createdAt: 2,
            events: [try event(keys, form: .notifyMeV3, hour: hour, start: hour * 3600, end: hour * 3600 + 60)])
        let notifyMeBytes = try notifyMe.bytes()
        #expect(try CrowdNotifierEventPackage(unverifiedBytes: notifyMeBytes) == notifyMe)
        #expect(CrowdNotifierEventPackage.fileName(.notifyMeV3) == "crowdnotifier-notifyme-v3.bin")
        var relabelled = notifyMeBytes
        relabelled[5] = CrowdNotifierEvent.Form.v3.rawValue
        // Read as SwissCovid's layout the fields do not fit: no event comes out of it.
        #expect((try? CrowdNotifierEventPackage(unverifiedBytes: relabelled))?.events.isEmpty ?? true)
        #expect(throws: WarningPackageError.notAPackage) { try CrowdNotifierEventPackage(unverifiedBytes: [1, 2]) }
    }
}
