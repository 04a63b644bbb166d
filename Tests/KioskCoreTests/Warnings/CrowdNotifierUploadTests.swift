import Foundation
import KioskOpenSSL
import KioskProto
import KioskSimulation
import KioskSodium
import SwiftProtobuf
import Testing

@testable import KioskCore

/// Server-based CrowdNotifier: a stay's upload entries against the iOS SDK's `testUserUploadInfo` vector, the
/// authority's events made from them warning another stay of the same venue and hour, and the `UserUploadPayload`
/// the share flow makes of a consented preview.
@Suite struct CrowdNotifierUploadTests {
    let crypto = OpenSSLCrypto()
    let box = SodiumSecretBox()

    /// The iOS SDK's upload case, as the identity vectors read it.
    typealias File = CrowdNotifierIdentityVectorTests.UploadFile

    @Test func entriesAreTheSDKsUserUploadInfos() throws {
        let file = try VectorFiles.json(File.self, "crowdnotifier/transcribed/ios-sdk-user-upload-info.json")
        let venueCase = file.userUploadInfoCase
        let payload = try #require(Hex.decode(venueCase.venueInfo.qrCodePayloadHex))
        let keys = try CrowdNotifierVenueKeys.v3(payload: payload, crypto: crypto)
        let entries = try CrowdNotifierUploadEntry.entries(
            keys: keys, startMs: venueCase.arrivalTimeMs, endMs: venueCase.departureTimeMs, crypto: crypto)
        #expect(entries.count == venueCase.expUserUploadInfos.count)
        for (entry, expected) in zip(entries, venueCase.expUserUploadInfos) {
            #expect(Hex.encode(entry.preId) == expected.preIdHex)
            #expect(Hex.encode(entry.timeKey) == expected.timeKeyHex)
            #expect(Hex.encode(entry.notificationKey) == expected.notificationKeyHex)
            #expect(entry.startMs == expected.intervalStartMs)
            #expect(entry.endMs == expected.intervalEndMs)
            #expect(
                try entry.identity(crypto: crypto)
                    == (try keys.identity(intervalStart: entry.intervalStart, crypto: crypto)))
        }
        // v2 keys have no time key to hand over.
        let v2 = try #require(
            CrowdNotifierVenueKeys(
                scheme: .v2, preId: [UInt8](repeating: 1, count: 32), timeNonce: [2],
                notificationKey: keys.notificationKey))
        #expect(try CrowdNotifierUploadEntry.entries(keys: v2, startMs: 0, endMs: 3_600_000, crypto: crypto).isEmpty)
    }

    /// One visitor's upload becomes the authority's events; they warn a stay that overlapped, not one an hour later.
    @Test func theAuthoritysEventsFromAnUploadWarnTheOverlappingStayOnly() throws {
        let keys = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 120), crypto: crypto)
        let hour: Int64 = 497_222
        let reporter = try CrowdNotifierUploadEntry.entries(
            keys: keys, startMs: (hour * 3600 + 600) * 1000, endMs: (hour * 3600 + 4200) * 1000, crypto: crypto)
        #expect(reporter.count == 2)
        let events = try reporter.map {
            try $0.event(nonce: try crypto.randomBytes(count: 24), crypto: crypto, box: box)
        }
        let index = CrowdNotifierEventIndex(events)
        let together = MatchableStay(
            id: "together", locationId: [], start: hour * 3600 + 3000, end: hour * 3600 + 5000, crowdNotifier: keys)
        let later = MatchableStay(
            id: "later", locationId: [], start: hour * 3600 + 4300, end: hour * 3600 + 7000, crowdNotifier: keys)
        let result = CrowdNotifierMatcher.match(stays: [together, later], index: index, crypto: crypto, box: box)
        #expect(result.matches.map(\.stayId) == ["together"])
        #expect(result.matches.first?.overlapMinutes == 20)
    }

    // MARK: The share flow's UserUploadPayload

    let now: Int64 = 1_764_000_000

    func swissCovidStay(_ id: String, keys: CrowdNotifierVenueKeys, start: Int64, minutes: Int64) -> ReportableStay {
        ReportableStay(
            id: id, venueName: "Caffè \(id)", locationId: Array(try! crypto.sha256(Array(id.utf8))), start: start,
            end: start + minutes * 60, crowdNotifier: keys)
    }

    func decodedPayload(_ bytes: [UInt8]) throws -> SwissCovid_UserUploadPayload {
        try SwissCovid_UserUploadPayload(serializedBytes: Data(bytes))
    }

    /// A consented stay at a SwissCovid venue (10:20–11:40 UTC) becomes exactly its two entries, among decoys that
    /// look the same and warn no one; a CWA stay beside it adds nothing to the payload; the preview says the hours.
    @Test func aConsentedStayAtASwissCovidVenueBecomesItsEntriesAmongDecoys() throws {
        let keys = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 90), crypto: crypto)
        let start = (now / 86_400 - 2) * 86_400 + 10 * 3600 + 20 * 60
        let stay = swissCovidStay("A", keys: keys, start: start, minutes: 80)
        let cwaStay = ReportableStay(
            id: "B", venueName: "Bäckerei", locationId: [UInt8](repeating: 9, count: 32), start: start - 86_400,
            end: start - 86_400 + 3600)
        let preview = try ConsentWalkthrough.consentedPreview(
            stays: [stay, cwaStay], now: now, symptoms: .symptomsWithoutDate, output: .export)
        #expect(preview.hourPartCount == 2)
        #expect(preview.carriesCrowdNotifierUpload)
        #expect(
            preview.lines.contains(
                "Caffè A, \(TimeText.date(unixSeconds: start)), 10:20–11:00, 11:00–11:40 UTC: "
                    + "also sent for the warning apps SwissCovid and NotifyMe. The health authority sees these times, but not the place."
            ),
            "\(preview.lines)")

        let bytes = try CrowdNotifierUploadPayload.bytes(for: preview, crypto: crypto)
        let message = try decodedPayload(bytes)
        #expect(message.version == 3 && message.userInteractionDurationMs == 0)
        #expect(message.venueInfos.count == ReportBatch.paddedCount(forReal: 2))
        #expect(message.venueInfos.allSatisfy { $0.fake == Data([0]) })
        let entries = try CrowdNotifierUploadPayload.entries(in: bytes)
        let real = try CrowdNotifierUploadEntry.entries(
            keys: keys, startMs: stay.start * 1000, endMs: stay.end * 1000, crypto: crypto)
        #expect(real.count == 2)
        for entry in real { #expect(entries.contains(entry)) }
        // The real venue's preId is shared by as many entries as the pattern's largest class; decoys are of the same
        // shape, in the 14 days before the hour of consent, and no decoy is any hour of the real venue.
        let groups = Dictionary(grouping: entries, by: \.preId).values.map(\.count).sorted(by: >)
        #expect(groups == ReportBatch.classSizes(forReal: 2))
        #expect(entries.filter { $0.preId == keys.preId }.count == ReportBatch.classSizes(forReal: 2)[0])
        for entry in entries where !real.contains(entry) {
            #expect(entry.timeKey.count == 32 && entry.notificationKey.count == 32)
            #expect(entry.intervalStart < now && entry.intervalStart >= now - 15 * 86_400)
            #expect(entry.startMs < entry.endMs && entry.endMs <= (entry.intervalStart + 3600) * 1000)
            #expect(
                try entry.identity(crypto: crypto)
                    != (try keys.identity(intervalStart: entry.intervalStart, crypto: crypto)))
        }
    }

    /// One real entry or seven, or none: the payload has the same size and the same pattern of shared `preId`s.
    @Test func onePayloadShapeForEveryCountInABucket() throws {
        var shapes = Set<[Int]>()
        var sizes = Set<Int>()
        for hours: Int64 in [0, 1, 3, 7] {
            let keys = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 90), crypto: crypto)
            let start = now - 86_400 - now % 3600
            var stays = [
                ReportableStay(
                    id: "cwa", venueName: "Bäckerei", locationId: [UInt8](repeating: 9, count: 32), start: start - 7200,
                    end: start - 3600)
            ]
            if hours > 0 { stays.append(swissCovidStay("X", keys: keys, start: start, minutes: hours * 60)) }
            let preview = try ConsentWalkthrough.consentedPreview(
                stays: stays, now: now, output: .upload(verificationCode: "ABCDEF12"))
            #expect(preview.hourPartCount == Int(hours))
            let bytes = try CrowdNotifierUploadPayload.bytes(for: preview, crypto: crypto)
            let entries = try CrowdNotifierUploadPayload.entries(in: bytes)
            shapes.insert(Dictionary(grouping: entries, by: \.preId).values.map(\.count).sorted(by: >))
            sizes.insert(bytes.count)
        }
        #expect(shapes == [ReportBatch.classSizes(forReal: 1)])
        #expect(sizes.count == 1)
    }

    /// On a stick or in an upload the payload always goes (so neither tells whether the holder was at such a
    /// venue); on paper only when there is an hour to print. v2 keys give no part of an hour.
    @Test func whereThePayloadGoes() throws {
        let v3 = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 90), crypto: crypto)
        let v2 = try #require(
            CrowdNotifierVenueKeys(
                scheme: .v2, preId: [UInt8](repeating: 1, count: 32), timeNonce: [2],
                notificationKey: v3.notificationKey))
        let start = now - 86_400
        let plain = ReportableStay(
            id: "cwa", venueName: "Bäckerei", locationId: [UInt8](repeating: 9, count: 32), start: start,
            end: start + 3600)
        for (stays, output, carried) in [
            ([plain], ReportOutput.print, false), ([plain], .export, true),
            ([plain], .upload(verificationCode: "ABCDEF12"), true),
            ([swissCovidStay("v3", keys: v3, start: start, minutes: 60)], .print, true),
            ([swissCovidStay("v2", keys: v2, start: start, minutes: 60)], .print, false),
        ] {
            let preview = try ConsentWalkthrough.consentedPreview(stays: stays, now: now, output: output)
            #expect(preview.carriesCrowdNotifierUpload == carried, "\(stays.map(\.id)) \(output.kind)")
        }
    }

    /// What the authority reads: a payload's entries back, receipt codes of at most five entries that read back into
    /// the same entries, entries marked fake left out, and any malformed entry refusing the whole payload.
    @Test func aPayloadReadsBackAndAnythingMalformedIsRefused() throws {
        let keys = try CrowdNotifierVenueKeys.v3(payload: try crypto.randomBytes(count: 90), crypto: crypto)
        let preview = try ConsentWalkthrough.consentedPreview(
            stays: [swissCovidStay("A", keys: keys, start: now - 90_000, minutes: 150)], now: now, output: .print)
        let bytes = try CrowdNotifierUploadPayload.bytes(for: preview, crypto: crypto)
        let entries = try CrowdNotifierUploadPayload.entries(in: bytes)
        let texts = try CrowdNotifierUploadPayload.codeTexts(of: bytes)
        #expect(texts.count == (entries.count + 4) / 5)
        let readBack = try texts.flatMap { text in
            try #require(CrowdNotifierUploadPayload.entries(text: " " + text + "\n"))
        }
        #expect(readBack == entries)
        #expect(CrowdNotifierUploadPayload.entries(text: "CKPB1:ABC") == nil)
        #expect(CrowdNotifierUploadPayload.entries(text: String(texts[0].dropLast(3))) == nil)

        var message = try decodedPayload(bytes)
        message.venueInfos[0].fake = Data([1])
        #expect(
            try CrowdNotifierUploadPayload.entries(in: [UInt8](try message.serializedData())).count == entries.count - 1
        )
        let breakers: [(inout SwissCovid_UploadVenueInfo) -> Void] = [
            { $0.preID = Data($0.preID.dropLast()) }, { $0.timeKey = Data() }, { $0.notificationKey.append(1) },
            { $0.intervalEndMs = $0.intervalStartMs }, { $0.intervalEndMs = $0.intervalStartMs + 3_600_001 },
        ]
        for breaker in breakers {
            var broken = try decodedPayload(bytes)
            breaker(&broken.venueInfos[3])
            #expect(throws: CrowdNotifierUploadError.invalidEntry) {
                try CrowdNotifierUploadPayload.entries(in: [UInt8](try broken.serializedData()))
            }
        }
        #expect(throws: CrowdNotifierUploadError.unreadable) {
            try CrowdNotifierUploadPayload.entries(in: [0xFF, 0xFF])
        }
    }
}
