import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import Testing

/// Text from outside (a venue code's name, address and room) carries no control or direction character into the
/// kiosk: a terminal runs no escape sequence of it, a line reads as written, and espeak-ng (which stops at a NUL)
/// says all of it.
@Suite struct OutsideTextTests {
    let crypto = OpenSSLCrypto()

    static let unsafe: [Unicode.Scalar] = [
        "\u{0}", "\u{1B}", "\u{7}", "\u{7F}", "\u{80}", "\u{9B}", "\u{9F}", "\u{61C}", "\u{200E}", "\u{200F}",
        "\u{202A}", "\u{202E}", "\u{2066}", "\u{2069}",
    ]

    @Test(arguments: unsafe)
    func aVenueCodesTextCarriesNoControlOrDirectionCharacter(_ character: Unicode.Scalar) throws {
        let fields = CWAVenueEncoder.Fields(
            description: "Bar\(character)[2JRest", address: "Street\(character)1", type: 1)
        let url = try CWAVenueEncoder.makeVenue(fields, crypto: crypto).url
        let venue = try VenueCodeParser.parse(url, crypto: crypto)
        let name = try #require(venue.name)
        let address = try #require(venue.address)
        #expect(!OutsideText.containsUnsafe(name))
        #expect(!OutsideText.containsUnsafe(address))
        #expect(name == "Bar\u{FFFD}[2JRest")
        #expect(address == "Street\u{FFFD}1")
    }

    @Test func ordinaryTextIsLeftAlone() {
        for text in ["Café zum Löwen", "مقهى", "שלום", "Zürich 🍕", "Ä\u{301}"] {
            #expect(OutsideText.neutralized(text) == text)
        }
        #expect(OutsideText.neutralized("a\u{1B}]0;x\u{7}b") == "a\u{FFFD}]0;x\u{FFFD}b")
    }

    /// espeak-ng stops at a NUL: a venue named with one must still be said whole.
    @Test func theSpokenScreenNamingAVenueSaysWhatFollowsANulInItsName() throws {
        let fields = CWAVenueEncoder.Fields(
            description: "Bar\u{0}Rest Garden", address: "Street 1", type: 1, defaultCheckInLengthInMinutes: 60)
        let url = try CWAVenueEncoder.makeVenue(fields, crypto: crypto).url
        var harness = MachineHarness()
        harness.openStaff()
        harness.run(.codeScanned(url))
        // Staff are told which venue the kiosk is now bound to.
        let screen = harness.machine.screen(now: harness.now)
        try #require(screen.readingOrder.contains { $0.contains("Rest Garden") }, "\(screen.readingOrder)")
        let spoken = CheckInMachine.spokenText(of: screen)
        #expect(!spoken.unicodeScalars.contains("\u{0}"))
        #expect(spoken.contains("Rest Garden"))
    }
}
