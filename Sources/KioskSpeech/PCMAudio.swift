/// Sound as the kiosk handles it: 16-bit signed mono samples at a sample rate (espeak-ng's 22050 Hz).
public struct PCMAudio: Sendable, Equatable {
    /// The samples, one per frame (mono).
    public var samples: [Int16]
    /// Frames per second.
    public var sampleRate: Int

    public init(samples: [Int16], sampleRate: Int) {
        precondition(sampleRate > 0, "a sample rate is positive")
        self.samples = samples
        self.sampleRate = sampleRate
    }

    /// How long the sound lasts when played: the samples over the rate.
    public var duration: Duration {
        .nanoseconds(Int64(samples.count) * 1_000_000_000 / Int64(sampleRate))
    }

    /// The same sound at `volume` percent (0–100, clamped) of its loudness: each sample times `volume / 100`,
    /// rounded towards zero. 100 leaves it as it is, 0 is silence. The scale is linear in amplitude (50 % is
    /// about 6 dB quieter), as the configuration's `speech.volume` documents.
    public func scaled(volume: Int) -> PCMAudio {
        let percent = Int32(min(max(volume, 0), 100))
        if percent == 100 { return self }
        return PCMAudio(samples: samples.map { Int16(Int32($0) * percent / 100) }, sampleRate: sampleRate)
    }

    /// The loudest sample's magnitude (0 for silence), for checks and tests.
    public var peak: Int {
        samples.reduce(0) { max($0, abs(Int($1))) }
    }
}
