public import Foundation

/// The station's texts in one language, from that language's catalog. None may contain personal data: venues and
/// stays appear only inside a card holder's own session.
public struct StationTexts: Sendable {
    public let catalog: Catalog
    /// How a visitor sees times: in this language and the venue's zone (`venue.timeZone`).
    public let time: VisitorTime

    public init(_ language: Language = .fallback, zone: VenueZone = .board) {
        catalog = Catalog.of(language)
        time = VisitorTime(language, zone: zone)
    }

    public var language: Language { catalog.language }

    /// A message whose title and body are two texts of the catalog.
    public func message(
        _ title: TextKey, _ body: TextKey, _ kind: StationMessage.Kind, _ values: [String: String] = [:]
    )
        -> StationMessage
    {
        StationMessage(title: catalog[title], body: catalog.text(body, values), kind: kind)
    }

    /// A message with a catalog title and a body made elsewhere (from the catalog too).
    public func message(_ title: TextKey, body: String, _ kind: StationMessage.Kind) -> StationMessage {
        StationMessage(title: catalog[title], body: body, kind: kind)
    }

    public var checkedIn: StationMessage { message(.stationCheckedInTitle, .stationCheckedInBody, .success) }
    /// A diary card's stay younger than 14 days gave way on the full card.
    public var cardWasFull: String { catalog[.diaryCardWasFull] }

    public var checkedInEndedElsewhere: StationMessage {
        message(.stationCheckedInTitle, .stationCheckedInEndedElsewhereBody, .success)
    }
    /// "Checked in", with the time the stay ends by itself (in the venue's zone).
    public func checkedIn(until end: Date, now: Date) -> StationMessage {
        message(
            .stationCheckedInTitle,
            body: catalog.text(
                .stationCheckedInBodyUntil, ["time": time.until(end, now: now)]),
            .success)
    }
    public var checkedOut: StationMessage { message(.stationCheckedOutTitle, .stationCheckedOutBody, .success) }
    /// "Checked out" after a stay longer than the venue's checkout warning delay (SwissCovid): a stay the holder forgot
    /// to end can be deleted in their session.
    public func checkedOutAfterLongStay(hours: Int) -> StationMessage {
        message(
            .stationCheckedOutTitle, body: catalog.text(.stationCheckedOutLongStayBody, ["hours": "\(max(1, hours))"]),
            .success)
    }
    public var alreadyRegistered: StationMessage {
        message(.stationAlreadyRegisteredTitle, .stationAlreadyRegisteredBody, .info)
    }
    public var notSetUp: StationMessage { message(.stationNotSetUpTitle, .stationNotSetUpBody, .error) }
    public var clockNotSet: StationMessage {
        message(.stationClockNotSetTitle, body: refusal(.clockNotSynchronized), .error)
    }
    public var clockSet: StationMessage { message(.stationClockSetTitle, .stationClockSetBody, .info) }
    public var notACheckInCode: StationMessage {
        message(.stationNotACheckInCodeTitle, .stationNotACheckInCodeBody, .error)
    }
    public var venueCodeHint: StationMessage {
        message(.stationVenueCodeHintTitle, .stationVenueCodeHintBody, .info)
    }
    public var notAKioskCard: StationMessage {
        message(.stationNotAKioskCardTitle, .stationNotAKioskCardBody, .error)
    }
    public var blankCard: StationMessage { message(.stationBlankCardTitle, .stationBlankCardBody, .error) }
    public var damagedCard: StationMessage { message(.stationDamagedCardTitle, .stationDamagedCardBody, .error) }
    /// After a tap whose card has a warning: no day, no place on the public screen, only that there is news.
    public var newsForCard: StationMessage { message(.stationNewsTitle, .stationNewsBody, .warning) }
    public var newsForCardShowCode: StationMessage { message(.stationNewsTitle, .stationNewsShowCodeBody, .warning) }
    /// `news` as shown after a tap: its body begins with what the tap did ("Checked in."), which it replaces on the
    /// screen, so the holder knows whether they are in or out before they open their session.
    public func news(_ news: StationMessage, after tap: StationMessage) -> StationMessage {
        StationMessage(
            title: news.title, body: catalog.text(.stationNewsAfterTap, ["tap": tap.title, "news": news.body]),
            kind: news.kind)
    }
    /// The idle screen.
    public var idle: StationMessage { message(.stationIdleTitle, .stationIdleBody, .info) }
    /// Where the reader and the camera are, in words (the idle screen draws them too).
    public func guide(reader: ScreenGeometry.Side, camera: ScreenGeometry.Side) -> [String] {
        let readerKey: TextKey =
            switch reader {
            case .left: .stationGuideReaderLeft
            case .right: .stationGuideReaderRight
            case .above: .stationGuideReaderAbove
            case .below: .stationGuideReaderBelow
            }
        let cameraKey: TextKey =
            switch camera {
            case .left: .stationGuideCameraLeft
            case .right: .stationGuideCameraRight
            case .above: .stationGuideCameraAbove
            case .below: .stationGuideCameraBelow
            }
        return [catalog[readerKey], catalog[cameraKey]]
    }
    /// "My check-ins" was chosen: waiting for the card.
    public var sessionPrompt: StationMessage {
        message(.stationSessionPromptTitle, .stationSessionPromptBody, .prompt)
    }
    public var myCheckIns: String { catalog[.stationMyCheckIns] }
    public var confirm: String { catalog[.stationConfirm] }
    public var cancel: String { catalog[.stationCancel] }
    public var buttonHint: String { catalog.buttonHint }
    public var languageChoice: String { catalog[.languageChoose] }

    /// Why a tap was refused, for the screen.
    public func refusal(_ refusal: TapRefusal) -> String {
        switch refusal {
        case .clockNotSynchronized: catalog[.refusalClockNotSynchronized]
        case .clockBehindLastTap: catalog[.refusalClockBehindLastTap]
        case .dailyLimitReached(let limit): catalog.text(.refusalDailyLimitReached, ["limit": String(limit)])
        case .staffCard: catalog[.refusalStaffCard]
        case .eventEnded: catalog[.refusalEventEnded]
        case .cardBlocked: catalog[.refusalCardBlocked]
        case .storeUnavailable: catalog[.refusalStoreUnavailable]
        case .cryptoFailure: catalog[.refusalCryptoFailure]
        case .profileUnreadable: catalog[.refusalProfileUnreadable]
        case .cardLeft: catalog[.refusalCardLeft]
        case .diaryUnreadable: catalog[.refusalDiaryUnreadable]
        }
    }

    /// A failed step, for the screen (a device's own reason, when there is one, in brackets).
    public func failure(_ failure: StationFailure) -> String {
        switch failure {
        case .store: catalog[.failureStore]
        case .printer(let reason): catalog.text(.failurePrinter, ["reason": reason])
        case .cardRemoved: catalog[.failureCardRemoved]
        case .enrolment(let reason): catalog.text(.failureEnrolment, ["reason": reason])
        case .refused(let tap): refusal(tap)
        case .crypto: catalog[.failureCrypto]
        }
    }

    /// Why a card cannot become a kiosk card.
    public func foreignCard(_ reason: CardRead.ForeignCardReason) -> String {
        switch reason {
        case .unsupportedCardType: catalog[.foreignCardUnsupportedCardType]
        case .otherContent: catalog[.foreignCardOtherContent]
        case .otherPassword: catalog[.foreignCardOtherPassword]
        case .untrusted: catalog[.foreignCardUntrusted]
        case .newerLayout: catalog[.foreignCardNewerLayout]
        case .otherRegion: catalog[.foreignCardOtherRegion]
        }
    }

    /// A receipt's name in a sentence ("The personal QR card did not print").
    public func printJob(_ kind: PrintJob.Kind) -> String {
        switch kind {
        case .venuePoster: catalog[.printJobVenuePoster]
        case .personalCard: catalog[.printJobPersonalCard]
        case .statusSlip: catalog[.printJobStatusSlip]
        case .warningSlip: catalog[.printJobWarningSlip]
        }
    }
}
