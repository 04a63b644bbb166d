public import Foundation

/// What the machine asks the runner to do, in order. Each action that can fail is answered by an event
/// (`.tapDone`, `.printDone`, …) that the runner feeds back to the machine.
public enum StationAction: Sendable, Equatable {
    /// Serve a visitor card's tap at the bound venue (`CheckInDesk.tap`), then answer with `.tapDone`.
    case recordTap(VisitorCard, StayVenue)
    /// Show a message on the screen.
    case show(StationMessage)
    /// Play a light and sound pattern.
    case indicate(IndicatorPattern)
    /// Print a receipt; answered with `.printDone`.
    case print(PrintJob)
    /// Save the station state durably before anything that depends on it; answered with `.persistDone`.
    case persist(StationState)
    /// Write this fresh secret to the card on the reader; answered with `.enrolDone`.
    case enrolCard(CardSecret)
    /// Make the new DESFire card on the reader a diary card of the region, its holder's settings unanswered (they
    /// answer them in their first session); answered with `.diaryCardMade`.
    case makeDiaryCard
    /// Delete every stored stay of every card; answered with `.wipeDone`.
    case wipeStore
    /// Delete the stays whose retention ended; answered with `.expiryDone`.
    case expireNow
    /// A visitor confirmed they read the warning with this acknowledgement tag (for the counters; the state that
    /// remembers it is persisted by the `.persist` before this action).
    case acknowledgeWarning(tag: [UInt8])
    /// Bytes from the CSPRNG are needed; answered with `.randomGenerated`.
    case requestRandom(RandomPurpose)
    /// Open what the kiosk holds for this card (its stays, profile, a warning for it if its holder allows matching,
    /// the report outputs available now), for its holder's session; answered with `.cardOpened`.
    case openCard(VisitorCard)
    /// Carry out a request of the card holder's session with the card's keys; answered with `.cardAnswered`.
    case cardRequest(VisitorCard, VisitorSession.Request)
    /// Count a refusal by its reason (the refusal counters and `kiosk_refusals_total`).
    case countRefusal(RefusalReason)
}

/// Why a card or code was refused, as the refusal counters name it: a tap's own refusal, or what was wrong with the
/// card or code shown. Decided by the machine where it refuses (never read back from a light pattern). Failed
/// prints, enrolments and staff commands are counted by their own counters.
public enum RefusalReason: String, Sendable, Equatable, CaseIterable {
    case clockNotSynchronized, clockBehindLastTap, dailyLimitReached, eventEnded, cardBlocked, staffCard
    case storeUnavailable, cryptoFailure, profileUnreadable, cardLeft, diaryUnreadable
    /// A blank card tapped outside enrolment.
    case blankCard
    /// A kiosk card whose enrolment did not finish, or that could not be read completely.
    case damagedCard
    /// Not a kiosk card (or another kiosk's).
    case foreignCard
    /// A card that says "staff" and was not enrolled as a staff card here.
    case unknownStaffCard
    /// A visitor card while the kiosk is bound to no venue.
    case venueNotSetUp
    /// A visitor card offered for enrolment.
    case alreadyEnrolled
    /// A code that is no check-in here (not a venue code, unusable, a venue code outside staff mode, a printed card
    /// code that is invalid or says "staff").
    case codeRefused

    /// The reason of a tap's own refusal.
    public init(_ refusal: TapRefusal) {
        switch refusal {
        case .clockNotSynchronized: self = .clockNotSynchronized
        case .clockBehindLastTap: self = .clockBehindLastTap
        case .dailyLimitReached: self = .dailyLimitReached
        case .eventEnded: self = .eventEnded
        case .cardBlocked: self = .cardBlocked
        case .staffCard: self = .staffCard
        case .storeUnavailable: self = .storeUnavailable
        case .cryptoFailure: self = .cryptoFailure
        case .profileUnreadable: self = .profileUnreadable
        case .cardLeft: self = .cardLeft
        case .diaryUnreadable: self = .diaryUnreadable
        }
    }
}

/// A message for the kiosk's screen: a short title, a body and a kind. Never carries personal data or venue
/// identifiers (venue names appear only to staff, when they bind or create a venue).
public struct StationMessage: Sendable, Equatable, Codable {
    public enum Kind: String, Sendable, Equatable, Codable {
        /// Neutral information or a hint.
        case info
        /// Something was stored or done.
        case success
        /// A visitor's pending warning.
        case warning
        /// Refused or failed.
        case error
        /// The kiosk waits for someone's input (a card, a code, confirmation).
        case prompt
    }

    public var title: String
    public var body: String
    public var kind: Kind

    public init(title: String, body: String, kind: Kind) {
        self.title = title
        self.body = body
        self.kind = kind
    }
}

/// A receipt the kiosk prints.
public enum PrintJob: Sendable, Equatable {
    /// The venue's QR poster (kiosk-created venues).
    case venuePoster(VenuePoster)
    /// A visitor's personal QR card: the card code as QR and text. Kept like a key.
    case personalCard(CardSecret)
    /// The status slip for staff.
    case statusSlip(StatusSlip)
    /// A visitor's warning slip: days of exposure and what to do; no venue.
    case warningSlip(WarningSlip)

    /// The kind of a job, for reports and counters (never its content).
    public enum Kind: String, Sendable, Equatable, Codable, CaseIterable {
        case venuePoster, personalCard, statusSlip, warningSlip
    }

    public var kind: Kind {
        switch self {
        case .venuePoster: .venuePoster
        case .personalCard: .personalCard
        case .statusSlip: .statusSlip
        case .warningSlip: .warningSlip
        }
    }

    /// Wipes the card secret a personal QR card carries; the other receipts hold no secret.
    public mutating func wipe(using crypto: some CryptoProvider) {
        guard case .personalCard(var secret) = self else { return }
        secret.wipe(using: crypto)
        self = .personalCard(secret)
    }
}

/// What a venue poster shows: the code's URL (as QR), the venue's name and address.
public struct VenuePoster: Sendable, Equatable {
    public var url: String
    public var description: String
    public var address: String

    public init(url: String, description: String, address: String) {
        self.url = url
        self.description = description
        self.address = address
    }
}

/// The staff's status slip: nothing personal. The runner fills in what only it knows (store counts, devices).
public struct StatusSlip: Sendable, Equatable {
    /// The bound venue's code format (display name), `nil` when unbound.
    public var venueFormat: String?
    /// A short fingerprint of the bound venue (not its identifier): lets staff tell two codes apart.
    public var venueFingerprint: String?
    /// Visitors checked in now (by the kiosk's counter of open check-ins).
    public var openCheckIns: Int
    public var clockSynchronized: Bool
    public var printedAt: Date
    /// Stored stays and cards (from the store), when the runner could read them.
    public var storedStays: Int?
    public var storedCards: Int?
    /// Device name → state ("ok", "missing", …).
    public var devices: [String: String]
    /// How many staff cards this kiosk enrolled (a count only, never which).
    public var staffCards: Int?

    public init(
        venueFormat: String?, venueFingerprint: String?, openCheckIns: Int, clockSynchronized: Bool,
        printedAt: Date, storedStays: Int? = nil, storedCards: Int? = nil, devices: [String: String] = [:],
        staffCards: Int? = nil
    ) {
        self.venueFormat = venueFormat
        self.venueFingerprint = venueFingerprint
        self.openCheckIns = openCheckIns
        self.clockSynchronized = clockSynchronized
        self.printedAt = printedAt
        self.storedStays = storedStays
        self.storedCards = storedCards
        self.devices = devices
        self.staffCards = staffCards
    }
}

/// A visitor's warning slip: the UTC days of exposure and whether the risk is high. No venue, no times of day.
public struct WarningSlip: Sendable, Equatable {
    /// UTC day numbers (days since 1970-01-01), ascending.
    public var exposureDays: [Int64]
    public var isHighRisk: Bool

    public init(exposureDays: [Int64], isHighRisk: Bool) {
        self.exposureDays = exposureDays
        self.isHighRisk = isHighRisk
    }
}
