import Foundation
import KioskOpenSSL
import KioskSodium
import Testing

@testable import KioskCore

/// Server-based CrowdNotifier: a stay's upload entries against the iOS SDK's `testUserUploadInfo` vector, and the
/// authority's events made from them warning another stay of the same venue and hour.
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
}
