internal import CKioskALSA
internal import Foundation
internal import Synchronization

/// Plays sound on an ALSA device: the board's headphone jack, a USB sound card, or any name `aplay -L` lists.
///
/// alsa-lib is loaded when a device is first opened and unloaded by `release()` (`ALSALibrary`). The device is
/// opened for each sound and closed after it (a USB sound card may be plugged in or out between
/// two; a fresh open notices), at the configured volume, applied to the samples in software (`PCMAudio.scaled`),
/// so it works the same on every card, mixer or not. Samples go out in small blocks (20 ms) so that a stop is
/// heard within about a block: between blocks the player asks whether to stop and, if so, drops what the device
/// still holds (`snd_pcm_drop`) rather than letting it play out. An underrun (the device ran dry) or a suspended
/// device is recovered with `snd_pcm_recover` and playback goes on.
///
/// Devices that take samples faster than they play them (ALSA's `null` device, the `file` plugin) are paced by the
/// player itself, never running more than the device's latency ahead of the sound's real time; so playing lasts as
/// long as the sound everywhere, and stopping is tested the same on a machine without a sound card.
///
/// `play(_:shouldStop:)` blocks its thread for the length of the sound; `play(_:)` runs it on a thread of its own,
/// never on Swift's cooperative pool.
///
/// The corresponding C functions are `snd_pcm_open`, `snd_pcm_set_params` (`SND_PCM_FORMAT_S16_LE`,
/// `SND_PCM_ACCESS_RW_INTERLEAVED`, one channel, resampling allowed), `snd_pcm_writei`, `snd_pcm_recover`,
/// `snd_pcm_drop`, `snd_pcm_drain` and `snd_pcm_close`.
public struct ALSAPlayer: Sendable {
    /// How much sound the device holds ahead of what is heard: the bound on how far behind a stop is heard on top
    /// of one block, and on how long a busy moment of the board may starve it.
    public static let defaultLatency: Duration = .milliseconds(100)

    /// How a sound ended.
    public enum Outcome: Sendable, Equatable {
        /// Played to its end.
        case finished
        /// Stopped before its end; the rest was dropped.
        case interrupted
    }

    /// The ALSA device name: `default`, `plughw:1,0`, `plughw:CARD=Headphones,DEV=0`, `null`.
    public var device: String
    /// 0–100 %: the samples' loudness as played (linear in amplitude).
    public var volume: Int
    /// The device's buffer, as asked of `snd_pcm_set_params`.
    public var latency: Duration

    public init(device: String = "default", volume: Int = 100, latency: Duration = ALSAPlayer.defaultLatency) {
        self.device = device
        self.volume = min(max(volume, 0), 100)
        self.latency = latency
    }

    /// Plays `audio` to its end, or until `shouldStop` (asked between blocks, on this thread) answers true, at
    /// `volume` percent (nil: the player's own). Blocks for the length of the sound; call it from a thread of your own.
    public func play(_ audio: PCMAudio, volume: Int? = nil, shouldStop: () -> Bool) throws(ALSAError) -> Outcome {
        let stream = try PCMStream(device: device, sampleRate: audio.sampleRate, latency: latency)
        return try stream.play(audio.scaled(volume: volume ?? self.volume), shouldStop: shouldStop)
    }

    /// Plays `audio` on a thread of its own; cancelling the waiting task stops it (within about a block).
    public func play(_ audio: PCMAudio) async throws(ALSAError) -> Outcome {
        let stop = StopFlag()
        let result: Result<Outcome, ALSAError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread {
                    do throws(ALSAError) {
                        continuation.resume(returning: .success(try play(audio, shouldStop: { stop.isSet })))
                    } catch {
                        continuation.resume(returning: .failure(error))
                    }
                }
                thread.name = "kiosk-speech-play"
                thread.start()
            }
        } onCancel: {
            stop.set()
        }
        return try result.get()
    }

    /// Opens the device and sets it up for sound at `sampleRate`, then closes it: whether the kiosk can speak here
    /// (for the device's state at start and `kiosk selftest`). Returns at once.
    public func check(sampleRate: Int) throws(ALSAError) {
        _ = try PCMStream(device: device, sampleRate: sampleRate, latency: latency)
    }

    /// Lets go of alsa-lib: unloads it now, or when the sound playing ends. The next sound loads it again. Returns
    /// whether it was loaded.
    @discardableResult
    public static func release() -> Bool { ALSALibrary.unload() }
}

/// A flag another thread sets to stop playback.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    func set() { flag.store(true, ordering: .relaxed) }
    var isSet: Bool { flag.load(ordering: .relaxed) }
}

/// alsa-lib, loaded (`dlopen`) when a device is first opened and unloaded by `unload()` once no device is open (the
/// speaker lets it go when the visitor who asked has left): an idle kiosk holds neither the library nor the
/// configuration it caches. Opens are made one at a time (alsa-lib reads its configuration on the first).
enum ALSALibrary {
    struct State: @unchecked Sendable {
        var library = kiosk_alsa_library()
        /// Devices open now.
        var users = 0
        /// Unload when the last device closes.
        var unloadWhenUnused = false
    }

    static let state = Mutex(State())

    /// Opens `device` for playback, loading the library if needed; the stream holds the library until it closes.
    static func open(_ device: String) throws(ALSAError) -> (OpaquePointer, kiosk_alsa_library) {
        try state.withLock { state throws(ALSAError) -> (OpaquePointer, kiosk_alsa_library) in
            if state.library.library == nil {
                guard kiosk_alsa_load(&state.library) == 0 else {
                    let reason = kiosk_alsa_load_error().map { String(cString: $0) } ?? "libasound.so.2 not found"
                    throw ALSAError(.load, device: device, code: -1, message: reason)
                }
            }
            var pcm: OpaquePointer?
            let opened = state.library.pcm_open(&pcm, device, SND_PCM_STREAM_PLAYBACK, 0)
            guard opened == 0, let pcm else {
                let message = PCMStream.message(opened, state.library)
                if state.users == 0 { kiosk_alsa_unload(&state.library) }
                throw ALSAError(.open, device: device, code: opened, message: message)
            }
            state.users += 1
            state.unloadWhenUnused = false
            return (pcm, state.library)
        }
    }

    /// Closes a stream's handle; the last one closed after `unload()` unloads the library.
    static func close(_ handle: OpaquePointer) {
        state.withLock { state in
            _ = state.library.pcm_close(handle)
            state.users -= 1
            if state.users == 0, state.unloadWhenUnused {
                kiosk_alsa_unload(&state.library)
                state.unloadWhenUnused = false
            }
        }
    }

    /// Unloads the library now if no device is open, else when the last one closes. Returns whether it was loaded.
    @discardableResult
    static func unload() -> Bool {
        state.withLock { state in
            guard state.library.library != nil else { return false }
            if state.users == 0 { kiosk_alsa_unload(&state.library) } else { state.unloadWhenUnused = true }
            return true
        }
    }
}

/// The one owner of an open ALSA playback handle, closed in `deinit`.
struct PCMStream: ~Copyable {
    private let handle: OpaquePointer
    private let alsa: kiosk_alsa_library
    private let device: String
    private let sampleRate: Int
    private let latency: Duration

    init(device: String, sampleRate: Int, latency: Duration) throws(ALSAError) {
        let (pcm, alsa) = try ALSALibrary.open(device)
        // At least a millisecond, whatever the caller asked for.
        let microseconds = UInt32(clamping: max(Int((latency / .microseconds(1)).rounded()), 1000))
        let configured = alsa.pcm_set_params(
            pcm, SND_PCM_FORMAT_S16_LE, SND_PCM_ACCESS_RW_INTERLEAVED, 1, UInt32(clamping: sampleRate), 1,
            microseconds)
        guard configured == 0 else {
            let message = Self.message(configured, alsa)
            ALSALibrary.close(pcm)
            throw ALSAError(.setParameters, device: device, code: configured, message: message)
        }
        self.handle = pcm
        self.alsa = alsa
        self.device = device
        self.sampleRate = sampleRate
        self.latency = latency
    }

    deinit {
        ALSALibrary.close(handle)
    }

    /// Writes `audio` block by block, paced to real time, asking `shouldStop` before each block and while the end
    /// plays out.
    func play(_ audio: PCMAudio, shouldStop: () -> Bool) throws(ALSAError) -> ALSAPlayer.Outcome {
        let samples = audio.samples
        let block = max(64, sampleRate / 50)
        let start = ContinuousClock.now
        var written = 0
        while written < samples.count {
            if shouldStop() {
                _ = alsa.pcm_drop(handle)
                return .interrupted
            }
            let count = min(block, samples.count - written)
            let result = samples.withUnsafeBufferPointer { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return alsa.pcm_writei(handle, base + written, snd_pcm_uframes_t(count))
            }
            if result >= 0 {
                written += result
                // A device that takes samples faster than it plays them: keep at most its latency ahead.
                if !waitUntil(start + soundLength(written) - latency, shouldStop: shouldStop) {
                    _ = alsa.pcm_drop(handle)
                    return .interrupted
                }
                continue
            }
            // An underrun (-EPIPE), a suspended device (-ESTRPIPE) or an interrupted call (-EINTR): recover and
            // go on; anything else (the card went away) ends the sound.
            let code = Int32(truncatingIfNeeded: result)
            guard alsa.pcm_recover(handle, code, 1) == 0 else {
                throw ALSAError(.write, device: device, code: code, message: Self.message(code, alsa))
            }
        }
        // The last blocks play out: wait for them (and stop them if asked), then let the device finish.
        guard waitUntil(start + soundLength(written), shouldStop: shouldStop) else {
            _ = alsa.pcm_drop(handle)
            return .interrupted
        }
        // A failed drain (an underrun at the very end) loses nothing that was still to be heard.
        _ = alsa.pcm_drain(handle)
        return .finished
    }

    private func soundLength(_ frames: Int) -> Duration {
        .nanoseconds(Int64(frames) * 1_000_000_000 / Int64(sampleRate))
    }

    /// Sleeps until `deadline` in slices of at most 10 ms, asking `shouldStop` between them; false if it said stop.
    private func waitUntil(_ deadline: ContinuousClock.Instant, shouldStop: () -> Bool) -> Bool {
        while true {
            let left = deadline - ContinuousClock.now
            if left <= .zero { return true }
            if shouldStop() { return false }
            let slice = min(left, .milliseconds(10)).components
            Thread.sleep(forTimeInterval: Double(slice.seconds) + Double(slice.attoseconds) / 1e18)
        }
    }

    static func message(_ code: Int32, _ alsa: kiosk_alsa_library) -> String {
        guard let text = alsa.strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
