internal import Dispatch
internal import Foundation
public import KioskCore
public import Logging
internal import Synchronization

/// The board's voice: espeak-ng's samples played on an ALSA device, one utterance at a time.
///
/// `say(_:)` and `stop()` return at once: the work is done by one thread of the speaker's own (started by the first
/// `say`, ended when the speaker goes away), which synthesizes the newest utterance and plays it. A newer `say`
/// or a `stop()` interrupts it within about one block of sound (20 ms; `ALSAPlayer`), whether it is still being
/// synthesized or already playing; utterances said while another plays are not queued: only the newest is spoken.
///
/// espeak-ng and alsa-lib are loaded when the first utterance is spoken and let go of (unloaded, with espeak-ng's
/// voice data and alsa-lib's configuration) after a `stop()`, which the station sends when the visitor who asked
/// has left: an idle kiosk holds neither (`EspeakSynthesizer.release()`, `ALSAPlayer.release()`).
///
/// A board without a sound device (or a broken espeak-ng) fails soft: the speaker logs the reason once, at error
/// level and never with the utterance's text, keeps the reason in `lastError` and goes on trying with each new
/// utterance (a USB sound card may be plugged in later); once speech works again it says so once. At the
/// player's volume 0 (the venue turned speech off) nothing is synthesized or played; otherwise an utterance's own
/// voice (a visitor's louder or slower speech) sets its volume and rate.
public final class BoardSpeaker: Speaker {
    let mailbox: SpeechMailbox

    /// A speaker synthesizing with `synthesizer` and playing through `player` (its device and volume).
    public init(synthesizer: EspeakSynthesizer = EspeakSynthesizer(), player: ALSAPlayer, logger: Logger) {
        mailbox = SpeechMailbox(synthesizer: synthesizer, player: player, logger: logger)
    }

    deinit {
        mailbox.close()
    }

    public func say(_ utterance: Utterance) {
        mailbox.post(utterance)
    }

    public func stop() {
        mailbox.post(nil)
    }

    /// Whether an utterance is waiting, being synthesized or being played now.
    public var isSpeaking: Bool { mailbox.isSpeaking }

    /// When the speaker last fell quiet (nothing waiting, synthesized or played), as its own thread saw it; nil
    /// before the first utterance. For the tests: it times a stop without their own polling in the way.
    var quietSince: ContinuousClock.Instant? { mailbox.quietSince }

    /// Why the last utterance could not be spoken, or nil if it was (or none was tried yet). Never holds the text.
    public var lastError: String? { mailbox.lastError }

    /// Whether speech can work here: espeak-ng starts and the device opens for its sample rate. Returns the
    /// device's state as the daemon shows it ("ok", "muted (volume 0)", "unavailable: …"); a failure is logged as
    /// the speaker logs it (once). Blocks for as long as opening the device takes (milliseconds).
    public func check() -> String {
        mailbox.check()
    }
}

/// What the speaker's thread is asked to do, and what it reports back; shared between the speaker and its thread
/// (which holds only this, so the speaker can go away while its thread ends).
final class SpeechMailbox: Sendable {
    private struct State {
        /// The utterance to speak next; nil when there is none (or `stop()` took it back).
        var pending: Utterance?
        /// Bumped by every `say` and `stop`: work begun under an older generation stops.
        var generation: UInt64 = 0
        var closed = false
        var threadStarted = false
        var speaking = false
        var quietSince: ContinuousClock.Instant?
        /// The failure last logged; nil once speech worked again.
        var reported: String?
        /// A stop came after the last utterance: let go of espeak-ng and alsa-lib once quiet.
        var releaseDue = false
        /// How many times the thread let go of them (for the tests).
        var releases = 0
    }

    private let state = Mutex(State())
    private let wakeUp = DispatchSemaphore(value: 0)
    private let synthesizer: EspeakSynthesizer
    private let player: ALSAPlayer
    private let logger: Logger

    init(synthesizer: EspeakSynthesizer, player: ALSAPlayer, logger: Logger) {
        self.synthesizer = synthesizer
        self.player = player
        self.logger = logger
    }

    /// Replaces what is pending (nil: nothing) and interrupts what is being spoken; starts the thread on first use.
    func post(_ utterance: Utterance?) {
        let startThread = state.withLock { state -> Bool in
            guard !state.closed else { return false }
            state.generation &+= 1
            state.pending = utterance
            state.releaseDue = utterance == nil && state.threadStarted
            if utterance != nil { state.speaking = true }
            guard utterance != nil, !state.threadStarted else { return false }
            state.threadStarted = true
            return true
        }
        if startThread {
            let thread = Thread { [self] in run() }
            thread.name = "kiosk-speech"
            thread.start()
        }
        wakeUp.signal()
    }

    /// Ends the thread (interrupting what it says).
    func close() {
        state.withLock { state in
            state.closed = true
            state.generation &+= 1
            state.pending = nil
        }
        wakeUp.signal()
    }

    var isSpeaking: Bool { state.withLock { $0.speaking } }
    var quietSince: ContinuousClock.Instant? { state.withLock { $0.quietSince } }
    var lastError: String? { state.withLock { $0.reported } }
    var releases: Int { state.withLock { $0.releases } }

    /// Checks, then lets go of the libraries again unless something is being said.
    func check() -> String {
        let answer = checkLoaded()
        if !isSpeaking { Self.release() }
        return answer
    }

    /// Unloads espeak-ng and alsa-lib (alsa-lib once the sound playing ends).
    static func release() {
        EspeakSynthesizer.release()
        ALSAPlayer.release()
    }

    private func checkLoaded() -> String {
        guard player.volume > 0 else { return "muted (volume 0)" }
        do throws(EspeakError) {
            let rate = try EspeakSynthesizer.sampleRate()
            do throws(ALSAError) {
                try player.check(sampleRate: rate)
            } catch {
                report(error.description)
                return "unavailable: \(error)"
            }
        } catch {
            report(error.description)
            return "unavailable: \(error)"
        }
        return "ok"
    }

    private func isCurrent(_ generation: UInt64) -> Bool {
        state.withLock { $0.generation == generation }
    }

    /// The speaker's thread: waits for an utterance, speaks it, until closed.
    private func run() {
        while true {
            wakeUp.wait()
            enum Next {
                case speak(Utterance, UInt64)
                case idle, release, end
            }
            let next = state.withLock { state -> Next in
                if state.closed { return .end }
                guard let utterance = state.pending else {
                    if state.speaking { state.quietSince = .now }
                    state.speaking = false
                    defer { state.releaseDue = false }
                    return state.releaseDue ? .release : .idle
                }
                state.pending = nil
                return .speak(utterance, state.generation)
            }
            switch next {
            case .end:
                Self.release()
                return
            case .idle: continue
            case .release:
                Self.release()
                state.withLock { $0.releases += 1 }
            case .speak(let utterance, let generation):
                speak(utterance, generation: generation)
                state.withLock { state in
                    state.speaking = state.pending != nil
                    if !state.speaking { state.quietSince = .now }
                }
            }
        }
    }

    private func speak(_ utterance: Utterance, generation: UInt64) {
        guard player.volume > 0 else { return }
        let audio: PCMAudio
        do throws(EspeakError) {
            audio = try synthesizer.synthesize(utterance) { isCurrent(generation) }
        } catch .cancelled {
            return
        } catch {
            report(error.description)
            return
        }
        do throws(ALSAError) {
            _ = try player.play(audio, volume: utterance.voice?.volume) { !isCurrent(generation) }
            recovered()
        } catch {
            report(error.description)
        }
    }

    /// Logs a failure the first time it happens (again only after speech worked in between).
    private func report(_ failure: String) {
        let first = state.withLock { state -> Bool in
            defer { state.reported = failure }
            return state.reported != failure
        }
        guard first else { return }
        logger.error(
            "Speech unavailable: the kiosk goes on without it",
            metadata: ["speech.device": "\(player.device)", "speech.error": "\(failure)"])
    }

    private func recovered() {
        let wasFailing = state.withLock { state -> Bool in
            defer { state.reported = nil }
            return state.reported != nil
        }
        if wasFailing {
            logger.notice("Speech available again", metadata: ["speech.device": "\(player.device)"])
        }
    }
}
