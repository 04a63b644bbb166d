import Foundation
import KioskCore
import Testing

/// A list of stays longer than a screen holds (`ScreenGeometry.staysPerPage`) is shown a page at a time, "Stay 1 of
/// 3", with "Previous page" and "Next page" where there is one; text is never made smaller to fit more.
@Suite struct StayPagesTests {
    static func screen(_ harness: MachineHarness) -> ScreenModel { harness.machine.screen(now: harness.now) }

    /// The default 7-inch 800×480 panel read at 40 cm lists one stay a page.
    @Test func theHoldersStaysComeAPageAtATime() {
        let card = StationFixtures.card()
        var harness = VisitorSessionTests.harnessWithStays(card, screen: ScreenGeometry())
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        var listed = [String]()
        var pages = [String]()
        for page in 1...3 {
            let home = Self.screen(harness)
            #expect(home.lines.contains("This kiosk holds 3 stays for this card."))
            #expect(home.lines.contains("Stay \(page) of 3"), "\(home.lines)")
            #expect(home.items.count == 1)
            listed += home.items
            pages.append(home.choices.map(\.id).joined(separator: " "))
            if page < 3 { harness.run(.chosen("next-page")) }
        }
        #expect(Set(listed).count == 3 && listed.allSatisfy { $0.contains("Friseur") })
        #expect(listed.first?.contains("open") == true, "newest first")
        #expect(
            pages == [
                "next-page share delete settings done", "previous-page next-page share delete settings done",
                "previous-page share delete settings done",
            ])
        // Back a page; a choice elsewhere starts the next list on its first page.
        harness.run(.chosen("previous-page"))
        #expect(Self.screen(harness).lines.contains("Stay 2 of 3"))
        harness.run(.chosen("settings"))
        harness.run(.chosen("back"))
        #expect(Self.screen(harness).lines.contains("Stay 1 of 3"))
        // No page before the first.
        harness.run(.chosen("previous-page"))
        #expect(Self.screen(harness).lines.contains("Stay 1 of 3"))
    }

    /// With the two buttons: "choose" on "Next page" turns the page and the outline stays on "Next page", so
    /// pressing "choose" again turns the next one.
    @Test func theButtonsTurnPageAfterPage() {
        let card = StationFixtures.card()
        var harness = VisitorSessionTests.harnessWithStays(card, screen: ScreenGeometry())
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        #expect(Self.screen(harness).selectedID == "next-page")
        harness.run(.navigated(.choose))
        #expect(Self.screen(harness).lines.contains("Stay 2 of 3"))
        #expect(Self.screen(harness).selectedID == "next-page")
        harness.run(.navigated(.choose))
        #expect(Self.screen(harness).lines.contains("Stay 3 of 3"))
        // The last page has no next: the outline starts again from the first choice.
        #expect(Self.screen(harness).selectedID == "previous-page")
    }

    /// The stays to delete and to share are paged too; a stay selected for sharing keeps its page, and the count
    /// of selected stays counts every page.
    @Test func theStaysToDeleteAndToShareArePaged() throws {
        let card = StationFixtures.card()
        var harness = VisitorSessionTests.harnessWithStays(card, screen: ScreenGeometry())
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        harness.run(.chosen("delete"))
        harness.run(.chosen("delete-one"))
        var pick = Self.screen(harness)
        #expect(pick.choices.filter { $0.id.hasPrefix("stay:") }.count == 1)
        #expect(pick.lines.contains("Stay 1 of 3") && pick.choices.contains { $0.id == "next-page" })
        harness.run(.chosen("next-page"))
        harness.run(.chosen("next-page"))
        pick = Self.screen(harness)
        #expect(pick.lines.contains("Stay 3 of 3") && !pick.choices.contains { $0.id == "next-page" })
        let oldest = try #require(pick.choices.first { $0.id.hasPrefix("stay:") })
        #expect(oldest.label.contains("11:00\u{2060}–\u{2060}12:00"), "the oldest is on the last page: \(oldest.label)")
        harness.run(.chosen("back"))

        harness.run(.chosen("share"))
        var share = Self.screen(harness)
        let count = share.choices.filter { $0.id.hasPrefix(VisitorSession.toggleChoicePrefix) }.count
        #expect(count == 1, "\(share.choices.map(\.id))")
        #expect(share.lines.contains { $0.hasPrefix("Stay 1 of ") })
        harness.run(.chosen("next-page"))
        share = Self.screen(harness)
        let toggle = try #require(share.choices.first { $0.id.hasPrefix(VisitorSession.toggleChoicePrefix) })
        harness.run(.chosen(toggle.id))
        share = Self.screen(harness)
        #expect(share.lines.contains { $0.hasPrefix("Stay 2 of ") }, "a selected stay keeps its page: \(share.lines)")
        #expect(share.choices.contains { $0.id == toggle.id && $0.label.hasPrefix("Selected") })
        harness.run(.chosen("previous-page"))
        let lines = Self.screen(harness).lines
        #expect(
            lines.contains { $0.hasPrefix("1 of ") && $0.hasSuffix(" selected.") }, "counted over every page: \(lines)")
    }

    /// More stays a page on a taller panel: "Stays 1–2 of 3" when two fit.
    @Test func aPageOfSeveralStaysSaysWhichItShows() {
        var panel = ScreenGeometry()
        (panel.widthPixels, panel.heightPixels) = (800, 600)
        #expect(panel.staysPerPage == 2)
        let card = StationFixtures.card()
        var harness = VisitorSessionTests.harnessWithStays(card, screen: panel)
        harness.run(.chosen("session"))
        harness.run(.cardRead(.card(card)))
        #expect(Self.screen(harness).lines.contains("Stays 1–2 of 3"))
        #expect(Self.screen(harness).items.count == 2)
        harness.run(.chosen("next-page"))
        #expect(Self.screen(harness).lines.contains("Stay 3 of 3"))
        #expect(Self.screen(harness).items.count == 1)
        // On the large panel all three are on one page: no page line, no page to turn.
        var large = VisitorSessionTests.harnessWithStays(card)
        large.run(.chosen("session"))
        large.run(.cardRead(.card(card)))
        #expect(Self.screen(large).items.count == 3)
        #expect(!Self.screen(large).lines.contains { $0.contains(" of 3") && $0.hasPrefix("Stay") })
        #expect(!Self.screen(large).choices.contains { $0.id.hasSuffix("-page") })
    }
}
