public import Foundation

/// Where staff are in the menu.
public enum StaffStep: Sendable, Equatable {
    case menu
    /// Waiting for a venue's poster to be scanned (any venue code binds in staff mode; this only prompts).
    case awaitingVenueCode
    /// Waiting for a blank card to enrol (a visitor card, or a staff card after `.enrolStaffCard`).
    case awaitingBlankCard
    /// A card is being enrolled (randomness, writing, printing).
    case enrolling
    /// Creating a venue (waiting for its seed).
    case creatingVenue(CWAFields)
    /// Rotating the venue code (waiting for its seed).
    case rotating(CWAFields)
    /// Asked "wipe the kiosk?".
    case confirmingWipe(forgetVenue: Bool)
    /// Wiping.
    case wiping(forgetVenue: Bool)

    /// Waiting for the runner: staff mode does not close by itself meanwhile.
    var isBusy: Bool {
        switch self {
        case .enrolling, .creatingVenue, .rotating, .wiping: true
        default: false
        }
    }
}

/// Staff mode: the step, its deadline (extended by every staff action), the card being enrolled, the questions its
/// new holder answers, and a receipt that did not print, offered again. Everything here goes when staff mode closes.
struct StaffMode: Sendable {
    var step: StaffStep = .menu
    /// Whether the menu shows its second page (after “More”).
    var showsMore = false
    /// Staff mode closes at this moment unless staff act before.
    var until: Date
    /// The kind of card `.awaitingBlankCard` and `.enrolling` make.
    var enrolKind: CardKind = .visitor
    /// The secret of the card being enrolled; wiped once it is printed or enrolment failed.
    var pendingCard: CardSecret?
    /// The questions asked after a visitor card was enrolled (permission to match, an optional PIN).
    var questions: EnrolmentQuestions?
    /// A receipt that did not print, offered to staff until `until`: confirm tries it again now, cancel (or the time
    /// running out) drops it. Nothing is ever printed later on its own.
    var reprint: ReprintOffer?
    /// The person at the kiosk in staff mode (their speech, their selection).
    var person: VisitorContext

    init(until: Date, now: Date) {
        self.until = until
        person = VisitorContext(now: now)
    }

    /// Wipes the secrets it holds.
    mutating func wipe(using crypto: some CryptoProvider) {
        pendingCard?.wipe(using: crypto)
        pendingCard = nil
        questions?.card.wipe(using: crypto)
        questions = nil
        reprint?.job.wipe(using: crypto)
        reprint = nil
        person.wipe(using: crypto)
    }

    /// The offered receipt, while its time lasts.
    func openOffer(now: Date) -> ReprintOffer? { reprint.flatMap { now < $0.until ? $0 : nil } }
}

/// A receipt that did not print, offered again until `until`.
struct ReprintOffer: Sendable {
    var job: PrintJob
    var until: Date
}
