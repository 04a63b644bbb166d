internal import Foundation
public import KioskCore
public import Logging
internal import Synchronization

/// What the reader saw.
public enum NFCCardEvent: Equatable, Sendable {
    /// A card was placed and read.
    case card(CardReadResult)
    /// A card was placed and enrolled on request (`enrolNextCard`), then verified.
    case enrolled
    /// The card left the reader.
    case removed
    /// The reader cannot be used; the reader retries with backoff.
    case readerUnavailable(NFCError)
}

/// The NFC reader service: a dedicated thread owns the `NFCDevice`, polls with bounded timeouts, reads each card
/// placed on it, waits for it to leave, and reports through `events`. `stop()` aborts a blocking libnfc call with
/// `nfc_abort_command` and returns when the thread has ended.
public final class NFCReader<Crypto: CryptoProvider>: Sendable {
    public let events: AsyncStream<NFCCardEvent>
    private let continuation: AsyncStream<NFCCardEvent>.Continuation
    private let connection: String
    private let access: KioskCardAccess<Crypto>
    private let desfire: DESFireCardHandler?
    private let logger: Logger
    private let removalCheckInterval: Duration
    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    private let abortHandle = Mutex<NFCAbortHandle?>(nil)
    private let wakeUp = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let enrolment = Mutex<(content: CardContent, reply: @Sendable (Result<Void, CardEnrolmentError>) -> Void)?>(
        nil)
    /// What `withDESFireCard` asked of a placement, until the reader's thread takes it.
    private let cardJob = Mutex<CardJob?>(nil)
    /// DESFire cards served so far.
    private let placements = Atomic<UInt64>(0)
    private typealias CardJob = (placement: UInt64, run: @Sendable (DESFireCard?) -> Void)

    /// - Parameters:
    ///   - connection: libnfc connection string, e.g. `pn532_uart:/dev/ttyS0`.
    ///   - removalCheckInterval: how often a card on the reader is checked for presence.
    ///   - desfire: what to do with a MIFARE DESFire card; nil reads it as any card that is not an NTAG21x.
    public init(
        connection: String, access: KioskCardAccess<Crypto>, logger: Logger,
        removalCheckInterval: Duration = .milliseconds(100), desfire: DESFireCardHandler? = nil
    ) {
        self.connection = connection
        self.access = access
        self.desfire = desfire
        self.logger = logger
        self.removalCheckInterval = removalCheckInterval
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(64))
    }

    /// Starts the polling thread.
    public func start() {
        guard !running.exchange(true, ordering: .sequentiallyConsistent) else { return }
        let thread = Thread { [self] in
            self.run()
            self.continuation.finish()
            self.finished.signal()
        }
        thread.name = "nfc-reader"
        thread.start()
    }

    /// Stops the thread (aborting any libnfc call in progress) and waits until it has closed the device.
    public func stop() {
        guard !stopping.exchange(true, ordering: .sequentiallyConsistent) else { return }
        guard running.load(ordering: .sequentiallyConsistent) else {
            continuation.finish()
            return
        }
        // Abort whatever libnfc call is in progress; repeat in case the thread was between two calls.
        repeat {
            abortHandle.withLock { $0?.abort() }
            wakeUp.signal()
        } while finished.wait(timeout: .now() + .milliseconds(5)) == .timedOut
        enrolment.withLock { $0 }?.reply(.failure(.reader(NFCError(code: .stopped))))
        takeCardJob()?.run(nil)
    }

    /// Runs `body` on the reader's thread with the DESFire card of `placement` (`DESFireCard.placement`, as the
    /// handler saw it) while that card still lies on the reader, between two checks that it is there; nil when it
    /// has left, another card lies there, or the reader stops. One request at a time: a newer one answers an
    /// older one that was not taken yet with nil.
    public func withDESFireCard<T: Sendable>(placement: UInt64, _ body: @escaping @Sendable (DESFireCard) -> T) async
        -> T?
    {
        await withCheckedContinuation { (waiter: CheckedContinuation<T?, Never>) in
            let job: CardJob = (placement, { card in waiter.resume(returning: card.map(body)) })
            let older = cardJob.withLock { current -> CardJob? in
                defer { current = job }
                return current
            }
            older?.run(nil)
            // A reader that stopped (or never ran) takes no job: answered here, or by `stop()` if it stops now.
            if isStopping || !running.load(ordering: .sequentiallyConsistent) { takeCardJob()?.run(nil) }
            wakeUp.signal()
        }
    }

    private func takeCardJob() -> CardJob? {
        cardJob.withLock { current -> CardJob? in
            defer { current = nil }
            return current
        }
    }

    /// Enrols the card lying on the reader with `content` (it has been read already, e.g. as blank), or else the next
    /// card placed on it, instead of reading it.
    ///
    /// Cancelling the calling task withdraws the request (it returns `.reader(.aborted)`), so a caller that gives up
    /// waiting for a card does not leave a request behind for the next card placed.
    public func enrolNextCard(_ content: CardContent) async -> Result<Void, CardEnrolmentError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Result<Void, CardEnrolmentError>, Never>) in
                let once = Mutex(false)
                enrolment.withLock {
                    $0 = (
                        content,
                        { result in
                            guard
                                !once.withLock({
                                    let done = $0
                                    $0 = true
                                    return done
                                })
                            else { return }
                            waiter.resume(returning: result)
                        }
                    )
                }
                if Task.isCancelled { withdrawEnrolment() }
                wakeUp.signal()
            }
        } onCancel: {
            withdrawEnrolment()
        }
    }

    /// Answers a pending enrolment request with `.reader(.aborted)` and forgets it.
    private func withdrawEnrolment() {
        takeEnrolmentRequest()?.reply(.failure(.reader(NFCError(code: .aborted))))
    }

    private var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    private func pause(_ duration: Duration) {
        _ = wakeUp.wait(timeout: .now() + .milliseconds(Int(max(1, duration.wholeMilliseconds))))
    }

    private func run() {
        var backoff: Duration = .seconds(1)
        while !isStopping {
            let device: NFCDevice
            do {
                device = try NFCDevice(connection: connection)
            } catch {
                logger.warning("NFC reader unavailable", metadata: ["nfc.error": "\(error)"])
                continuation.yield(.readerUnavailable(error))
                pause(backoff)
                backoff = min(backoff * 2, .seconds(30))
                continue
            }
            backoff = .seconds(1)
            abortHandle.withLock { $0 = device.abortHandle }
            logger.debug("NFC reader open")
            let failure = serve(device)
            abortHandle.withLock { $0 = nil }
            if let failure, !isStopping {
                logger.warning("NFC reader failed", metadata: ["nfc.error": "\(failure)"])
                continuation.yield(.readerUnavailable(failure))
                pause(backoff)
            }
        }
    }

    /// Polls and reads until stopped (nil) or until the reader fails.
    private func serve(_ device: NFCDevice) -> NFCError? {
        defer { takeCardJob()?.run(nil) }
        while !isStopping {
            // No card lies on the reader now: a job for one that was there is answered.
            takeCardJob()?.run(nil)
            let target: NFCTarget
            do {
                guard let found = try device.poll(count: 1, period: 2) else { continue }
                target = found
            } catch {
                if isStopping || error.code == .aborted { continue }
                return error
            }
            var served: DESFireCard?
            var handled = false
            // Whatever the handler kept of the card goes when this placement ends, however it ends (the card left,
            // the reader failed, the reader stops).
            defer { if handled { desfire?.left() } }
            if let request = takeEnrolmentRequest() {
                enrol(request, on: target, over: device)
            } else if let desfire, target.isISO14443Part4 {
                handled = true
                let (failure, card) = serveDESFire(target, over: device, with: desfire)
                served = card
                if let failure { return failure }
            } else {
                do {
                    let result = try access.read(target, over: device)
                    logger.debug("NFC card read", metadata: ["nfc.result": "\(Self.summary(result))"])
                    continuation.yield(.card(result))
                } catch {
                    if !error.isCardGone && error.code != .refused && error.code != .unexpectedAnswer { return error }
                    logger.debug("NFC card left during reading")
                }
            }
            while !isStopping && isStillThere(target, on: device) {
                // Enrolment asked for while a (blank) card lies on the reader: enrol that card, no need to lift it.
                if let request = takeEnrolmentRequest() {
                    do {
                        guard let present = try device.reselect() else {
                            request.reply(.failure(.cardRemoved))
                            break
                        }
                        enrol(request, on: present, over: device)
                    } catch {
                        request.reply(.failure(error.isCardGone ? .cardRemoved : .reader(error)))
                        if !error.isCardGone { return error }
                    }
                }
                if let job = takeCardJob() { job.run(job.placement == served?.placement ? served : nil) }
                pause(removalCheckInterval)
            }
            if !isStopping { continuation.yield(.removed) }
        }
        return nil
    }

    /// A card that speaks ISO/IEC 14443-4 when a DESFire handler is set: a MIFARE DESFire goes to the handler,
    /// any other such card is read as before (not a kiosk card). Returns the reader's failure, nil otherwise (a
    /// card that left is not a failure).
    private func serveDESFire(_ target: NFCTarget, over device: NFCDevice, with handler: DESFireCardHandler)
        -> (NFCError?, DESFireCard?)
    {
        do {
            if var card = try DESFireCard.identify(target, over: device, crypto: handler.crypto) {
                logger.debug("NFC DESFire card")
                card.placement = placements.wrappingAdd(1, ordering: .relaxed).newValue
                if let result = handler.serve(card) { continuation.yield(.card(result)) }
                return (nil, card)
            } else {
                let result = try access.read(target, over: device)
                continuation.yield(.card(result))
            }
        } catch {
            if !error.isCardGone && error.code != .refused && error.code != .unexpectedAnswer { return (error, nil) }
            logger.debug("NFC card left during reading")
        }
        return (nil, nil)
    }

    /// Whether the card read as `target` still lies on the reader. A tag that NAKed a command (a card of another
    /// kiosk refuses the password) has gone idle and fails the presence check although it is still there, and would
    /// otherwise be found, read and refused again at every poll: it is selected once more, and only no card, or
    /// another one, means it left. One refusal per placement, whatever the card. A card with a random UID (a
    /// diary card) draws a new one at every selection: another random UID found there is taken for the same card.
    private func isStillThere(_ target: NFCTarget, on device: NFCDevice) -> Bool {
        if device.isTargetPresent() { return true }
        guard let again = try? device.reselect() else { return false }
        return again.uid == target.uid || (target.hasRandomUID && again.hasRandomUID)
    }

    private typealias EnrolmentRequest = (
        content: CardContent, reply: @Sendable (Result<Void, CardEnrolmentError>) -> Void
    )

    private func takeEnrolmentRequest() -> EnrolmentRequest? {
        enrolment.withLock { current -> EnrolmentRequest? in
            defer { current = nil }
            return current
        }
    }

    private func enrol(_ request: EnrolmentRequest, on target: NFCTarget, over device: NFCDevice) {
        do {
            try access.enrol(request.content, on: target, over: device)
            logger.debug("NFC card enrolled")
            request.reply(.success(()))
            continuation.yield(.enrolled)
        } catch {
            logger.debug("NFC card enrolment failed", metadata: ["nfc.enrolment": "\(error)"])
            request.reply(.failure(error))
        }
    }

    /// The kind of result, for logs (never the content).
    static func summary(_ result: CardReadResult) -> String {
        switch result {
        case .kioskCard: "kiosk-card"
        case .notAKioskCard: "not-a-kiosk-card"
        case .incompleteEnrolment: "incomplete-enrolment"
        case .unsupportedLayout: "unsupported-layout"
        case .diaryCard: "diary-card"
        case .newDiaryCard: "new-diary-card"
        }
    }
}
