internal import Synchronization

/// A PN532 that can be shared between the thread serving its serial line and the code that places cards and arms
/// faults. All state lives in one `PN532Chip` behind a mutex.
public final class PN532Emulator: Sendable {
    private let chip: Mutex<PN532Chip>
    private let changed: Mutex<(@Sendable () -> Void)?> = Mutex(nil)

    public init(card: EmulatedCard? = nil) {
        var chip = PN532Chip()
        if let card { chip.place(card) }
        self.chip = Mutex(chip)
    }

    /// Runs `body` with exclusive access to the chip (to read its state in tests).
    public func withChip<R>(_ body: (inout PN532Chip) -> R) -> R {
        chip.withLock { body(&$0) }
    }

    /// Puts `card` on the antenna (replacing any card there).
    public func place(_ card: EmulatedCard) {
        chip.withLock { $0.place(card) }
        notify()
    }

    /// Takes the card away and returns it as it is now.
    @discardableResult
    public func removeCard() -> EmulatedCard? {
        let card = chip.withLock { $0.removeCard() }
        notify()
        return card
    }

    /// The card on the antenna, if any.
    public var card: EmulatedCard? { chip.withLock { $0.card } }

    /// Arms `fault`.
    public func inject(_ fault: PN532Fault) { chip.withLock { $0.inject(fault) } }

    /// Bytes from the host in, bytes to the host out.
    public func receive(_ bytes: [UInt8]) -> [UInt8] {
        chip.withLock { $0.receive(bytes, now: .now) }
    }

    /// Answers a waiting command if it can now be answered.
    public func tick() -> [UInt8] { chip.withLock { $0.tick(now: .now) } }

    /// When `tick` must run next, if a command waits with a time limit.
    public var deadline: ContinuousClock.Instant? { chip.withLock { $0.deadline } }

    /// Registers the function called after a card was placed or removed (the serial-line server wakes up with it).
    public func onChange(_ handler: (@Sendable () -> Void)?) { changed.withLock { $0 = handler } }

    private func notify() { changed.withLock { $0 }?() }
}
