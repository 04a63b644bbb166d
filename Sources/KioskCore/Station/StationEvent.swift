/// Something that happened at the kiosk, as the daemon's device loops and the runner report it to `CheckInMachine`.
public enum StationEvent: Sendable {
    /// A card was read on the NFC reader.
    case cardRead(CardRead)
    /// The card left the reader.
    case cardRemoved
    /// The camera decoded a QR code's text.
    case codeScanned(String)
    /// A button on the kiosk (or its screen) was pressed.
    case buttonPressed(StationButton)
    /// The clock's synchronization state or time changed.
    case clockChanged(ClockReading)
    /// The periodic timer (about once a second).
    case tick
    /// The result of carrying out `.recordTap`: the tap's outcome and, if the card's stays overlap a published
    /// warning, the notice for it.
    /// `cardWasFull`: a diary card's stay younger than 14 days gave way on the full card (its holder is told).
    case tapDone(TapOutcome, warning: WarningNotice?, language: Language? = nil, cardWasFull: Bool = false)
    /// A warning for the diary card on the reader, found after its tap was answered (reading the card's ring to match
    /// it takes longer than the tap): told as news while its holder is still here (`placement`), dropped otherwise.
    case tapNews(WarningNotice, placement: UInt64)
    /// The result of carrying out `.enrolCard`.
    case enrolDone(Result<Void, StationFailure>)
    /// The runner made the new DESFire card on the reader a diary card of the region (`.makeDiaryCard`), or why not.
    case diaryCardMade(Result<Void, StationFailure>)
    /// The result of carrying out `.print`.
    case printDone(PrintJob.Kind, Result<Void, StationFailure>)
    /// The result of carrying out `.persist`.
    case persistDone(Result<Void, StationFailure>)
    /// The result of carrying out `.wipeStore`.
    case wipeDone(Result<Void, StationFailure>)
    /// The result of carrying out `.expireNow`: how many stays were deleted.
    case expiryDone(Result<Int, StationFailure>)
    /// The answer to `.requestRandom`: bytes from the operating system's CSPRNG.
    case randomGenerated(RandomPurpose, Result<[UInt8], StationFailure>)
    /// A choice in the staff menu.
    case staffCommand(StaffCommand)
    /// A choice on the screen, by its id (`ScreenModel.Choice.id`): touched on the page, or named by the simulated
    /// kiosk.
    case chosen(String)
    /// One of the two physical buttons: the next choice, or choose the selected one.
    case navigated(NavigationButton)
    /// Either button was held for `CheckInMachine.speechHoldTime`: say the screen (and the next ones).
    case speakRequested
    /// The answer to `.openCard`: what the kiosk holds for the card, for its holder's session.
    case cardOpened(Result<VisitorSession.CardView, StationFailure>)
    /// The answer to `.cardRequest`.
    case cardAnswered(Result<VisitorSession.Answer, StationFailure>)
}

/// What the NFC reader found.
public enum CardRead: Sendable, Equatable {
    /// One of this kiosk's cards, complete and verified: its secret.
    case card(CardSecret)
    /// A supported card with empty user memory: can be enrolled.
    case blank
    /// Not a kiosk card.
    case foreign(ForeignCardReason)
    /// A kiosk card whose enrolment did not finish, or that could not be read completely: to be enrolled again.
    case damaged
    /// A diary card of the kiosk's region, opened with its keys, lying on the reader (docs/diary-card.md).
    case diary(DiaryCardOnReader)
    /// A MIFARE DESFire card without a diary, on the reader of a kiosk with a region: staff enrolling a visitor card
    /// make it a diary card of the region; for anyone else it is a card not enrolled yet.
    case newDiaryCard

    /// Why a card is not one of this kiosk's cards. Says nothing about the card's content.
    public enum ForeignCardReason: String, Sendable, Equatable, Codable, CaseIterable {
        /// Not an NTAG21x / Ultralight EV1 (a bank card, transit card, MIFARE Classic, …).
        case unsupportedCardType
        /// A supported card with other content.
        case otherContent
        /// A supported card protected by a password this kiosk does not know (another kiosk's card).
        case otherPassword
        /// A card that answered like a clone or an emulator.
        case untrusted
        /// A kiosk card of a newer layout.
        case newerLayout
        /// A diary card of another region, or of a key generation this kiosk does not hold (retired, or not yet
        /// installed).
        case otherRegion
    }
}

/// The kiosk's buttons.
public enum StationButton: String, Sendable, Equatable, Codable, CaseIterable {
    case confirm
    case cancel
}

/// Choices in the staff menu (staff mode only).
public enum StaffCommand: Sendable, Equatable {
    /// Wait for the venue's poster to be scanned, and bind the kiosk to it.
    case bindVenue
    /// Create a new CWA venue from the staff's form, bind the kiosk to it and print its poster.
    case createVenue(VenueDraft)
    /// Give the bound venue a new code (new seed) and print its poster; refused while anyone is checked in.
    case rotateVenueCode
    /// Print the bound venue's poster again (venues created on this kiosk).
    case reprintPoster
    /// Enrol the blank card put on the reader and print its personal QR card.
    case enrolCard
    /// Enrol the blank card put on the reader as a staff card of this kiosk (no code is printed for it).
    case enrolStaffCard
    /// Forget every staff card this kiosk enrolled (refused when no staff code is configured: nothing could open
    /// staff mode any more).
    case forgetStaffCards
    /// Print a status slip.
    case printStatus
    /// Wipe every stored check-in and warning. Without `confirmed` the kiosk asks first. The venue binding stays
    /// unless `forgetVenue`.
    case wipe(confirmed: Bool, forgetVenue: Bool = false)
    /// Close staff mode.
    case leave
}

extension StaffCommand {
    /// The staff menu, in its order: each entry's name (the screen's choice `staff:<name>`, `kiosk simulate
    /// staff-menu <name>`), its label and its command. Creating a venue needs its form and is not among them (the
    /// staff terminal's `staff-menu create`).
    public static let menu: [(name: String, label: TextKey, command: StaffCommand)] = [
        ("bind", .staffMenuBind, .bindVenue), ("enrol", .staffMenuEnrol, .enrolCard),
        ("status-slip", .staffMenuStatusSlip, .printStatus), ("reprint", .staffMenuReprint, .reprintPoster),
        ("rotate", .staffMenuRotate, .rotateVenueCode), ("enrol-staff", .staffMenuEnrolStaff, .enrolStaffCard),
        ("forget-staff", .staffMenuForgetStaff, .forgetStaffCards), ("wipe", .staffMenuWipe, .wipe(confirmed: false)),
        ("leave", .staffMenuLeave, .leave),
    ]

    /// The entries of the menu's first page, what staff do every day; the others come after “More” (`staff:more`),
    /// with “Back” (`staff:back`): a 7-inch screen's text size leaves room for about five choices beside the text.
    public static let firstPage: Set<String> = ["bind", "enrol", "status-slip", "leave"]

    /// The menu's command named `name`, if any.
    public static func named(_ name: String) -> StaffCommand? { menu.first { $0.name == name }?.command }
}

/// What randomness the machine asked the runner for.
public enum RandomPurpose: String, Sendable, Equatable, Codable {
    /// A new venue's 16-byte cryptographic seed.
    case venueSeed
    /// A rotated venue code's 16-byte seed.
    case rotatedVenueSeed
    /// A new card's 128 bits.
    case cardEntropy

    /// How many bytes the purpose needs.
    public var byteCount: Int { 16 }
}

/// Why the runner could not carry out an action. The messages say what to do; they carry no personal data.
public enum StationFailure: Error, Sendable, Equatable {
    /// The store refused (full, read-only, damaged).
    case store(StoreError)
    /// The printer did not take the job; `reason` is the printer's description (device path and what to check).
    case printer(reason: String)
    /// The card left the reader before enrolment finished.
    case cardRemoved
    /// The card could not be enrolled; `reason` says why (card type, another kiosk's card, reader failure).
    case enrolment(reason: String)
    /// A tap's own refusal, when a card's session could not be served (a blocked card, the store).
    case refused(TapRefusal)
    /// The random number generator or another crypto operation failed.
    case crypto
}

extension StationFailure: CustomStringConvertible {
    public var description: String {
        switch self {
        case .store(let error): "The kiosk's storage failed: \(error)"
        case .printer(let reason): "Not printed: \(reason)"
        case .cardRemoved: "The card was taken away too early: hold it on the reader and try again."
        case .enrolment(let reason): "The card was not enrolled: \(reason)"
        case .refused(let refusal): refusal.description
        case .crypto: "The kiosk's encryption failed. Restart the kiosk."
        }
    }
}
