// The ports the station uses, beside the printer's (`ReceiptPrinter`, in KioskPrinter, whose errors are the device's).

/// Writes a fresh secret to the blank card on the reader (the daemon implements it with libnfc's
/// `KioskCardAccess.enrol`). Throws `.cardRemoved` when the card left, `.enrolment(reason:)` otherwise.
public protocol CardEnroller: Sendable {
    func enrol(_ secret: CardSecret) async throws(StationFailure)
}

/// Matches a card's stays against the published warnings the kiosk keeps (the daemon's warnings client).
public protocol WarningSource: Sendable {
    func match(_ stays: [MatchableStay]) async -> ExposureResult?
    /// Whether any warning is kept at all; when not, a tap does not read the card's stays a second time to match
    /// them against nothing.
    var holdsWarnings: Bool { get async }
    /// Matches a diary card's stays, at any venue of the region, against the region's records the kiosk keeps
    /// (`warnings.keepRegion`); nil when none are kept or nothing matched. Throws when the records could not be read:
    /// the stays were not checked against them.
    func matchRegion(_ stays: [MatchableStay]) async throws(RegionWarningReadError) -> ExposureResult?
}

extension WarningSource {
    public var holdsWarnings: Bool { get async { true } }
    public func matchRegion(_ stays: [MatchableStay]) async throws(RegionWarningReadError) -> ExposureResult? { nil }
}

/// The devices' states for the status slip ("printer" → "ok", …); no personal data.
public protocol DeviceStatusSource: Sendable {
    func deviceStates() async -> [String: String]
}

/// The diary card on the reader (docs/diary-card.md): each call is carried out on the card while it lies there,
/// with the region's keys, and refuses with `.cardLeft` once the placement named has left. The daemon serves it with
/// the NFC reader and the region's token; `DiaryDesk` decides.
public protocol DiaryCardAccess: Sendable {
    /// A tap at `venue` (`DiaryDesk.stationTap(_:at:clock:)`).
    func tap(_ card: DiaryCardOnReader, at venue: StayVenue, clock: ClockReading) async
        -> (outcome: TapOutcome, language: Language?, cardWasFull: Bool, matchingAllowed: Bool)
    /// The card's stays to match against warnings and its holder's profile, read from the card while it lies there
    /// (`DiaryDesk.matchable`); nil when it left or could not be read.
    func matchable(of card: DiaryCardOnReader, clock: ClockReading) async -> (
        stays: [MatchableStay], profile: CardProfile
    )?
    /// What the holder's session shows (`DiaryDesk.contents`).
    func contents(of card: DiaryCardOnReader, clock: ClockReading) async throws(TapRefusal) -> CheckInDesk.CardContents
    /// The daily expiry: the region's day keys older than 14 days are destroyed (`DiaryDesk.forgetOldDays`).
    func forgetOldDays(clock: ClockReading) async throws(TapRefusal)
    /// A request of the holder's session (`DiaryDesk.serve`).
    func serve(_ request: VisitorSession.Request, of card: DiaryCardOnReader, clock: ClockReading)
        async
        throws(TapRefusal) -> ServedRequest
    /// Makes the new DESFire card read last (`CardRead.newDiaryCard`), still on the reader, a diary card of the region
    /// with `profile` (`DiaryCardMaker`): `.cardRemoved` when it left first, `.enrolment(reason:)` when it was not
    /// made.
    func make(profile: CardProfile) async throws(StationFailure)
}
