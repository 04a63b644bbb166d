public import Foundation
public import KioskCore
public import KioskDaemon
public import KioskPrinter
internal import Synchronization
internal import SystemPackage

/// The lights and buzzer of a simulated kiosk: remembers what was shown, for `kiosk simulate lights`.
///
/// Like the board's lights it returns at once and keeps their timing on the simulated clock: each pattern is recorded
/// with when it started and when it ends (the start plus the pattern's duration; patterns shown together follow each
/// other), and a newer `show` or `clear()` cuts what plays short (`IndicatorHistory`). It never sleeps.
public actor SimulatedIndicator: Indicator, LightRecorder {
    private let table: FeedbackTable
    private let clock: any ClockSource
    /// The patterns shown (the last 200), with when each started, ends, and was cut short.
    public private(set) var played = IndicatorHistory(limit: 200)
    /// The newest pattern shown (the last of those shown together), until `clear()`; its steps may have played out
    /// (its `hold` outputs stay on).
    public private(set) var current: IndicatorPattern?
    /// When each pattern was last asked for (monotonic), for latency measurements.
    public private(set) var lastShown: [IndicatorPattern: ContinuousClock.Instant] = [:]

    public init(table: FeedbackTable = .default, clock: any ClockSource) {
        self.table = table
        self.clock = clock
    }

    public func show(_ patterns: [IndicatorPattern], sound: Bool) async {
        let asked = ContinuousClock.now
        for pattern in patterns { lastShown[pattern] = asked }
        current = patterns.last
        played.show(patterns, sound: sound, table: table, at: clock.read().now)
    }

    public func clear() async {
        current = nil
        played.clear(at: clock.read().now)
    }

    /// The pattern whose steps are playing at the simulated clock's time, if any.
    public var playing: PlayedPattern? { played.playing(at: clock.read().now) }

    /// What was shown, with the outputs each pattern drives.
    public var history: [RecordedLight] {
        played.played.map { played in
            let sequence = table[played.pattern]
            var outputs = Set(sequence.steps.flatMap { $0.on } + Array(sequence.hold))
            if !played.sound { outputs.remove(.buzzer) }
            return RecordedLight(
                pattern: played.pattern.rawValue, outputs: outputs.map(\.rawValue).sorted(), at: played.started,
                ends: played.ends, stopped: played.stopped)
        }
    }

    public func recordedLights() async -> [RecordedLight] { history }
}

/// The receipt printer of a simulated kiosk: each receipt becomes a numbered set of files in the receipts
/// directory: the ESC/POS bytes, the text lines, and the printed image as PNG.
public actor FileReceiptPrinter: ReceiptPrinter, ReceiptRecorder {
    private let directory: String
    private let paper: PaperWidth
    private var next: Int
    public private(set) var receipts: [RecordedReceipt] = []

    public init(directory: String, paper: PaperWidth = .mm58) {
        self.directory = directory
        self.paper = paper
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let existing = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        next = (existing.compactMap { Int($0.prefix(4)) }.max() ?? 0) + 1
    }

    public func print(_ bytes: [UInt8]) async throws(PrinterError) {
        let base = (directory as NSString).appendingPathComponent(String(format: "%04d", next))
        let rendering: ESCPOSInterpreter.Rendering
        do {
            rendering = try ESCPOSInterpreter.render(bytes, paper: paper)
        } catch {
            throw .failed(path: base, call: "render", errno: .invalidArgument)
        }
        let lines = rendering.lines.map(\.text)
        let png = PNGEncoder.encode(
            width: rendering.width, height: max(1, rendering.height),
            grey: rendering.height > 0 ? rendering.pixels : [UInt8](repeating: 255, count: rendering.width))
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: base + ".escpos"), options: .atomic)
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(
                to: URL(fileURLWithPath: base + ".txt"), options: .atomic)
            try Data(png).write(to: URL(fileURLWithPath: base + ".png"), options: .atomic)
        } catch {
            throw .failed(path: base, call: "write", errno: .ioError)
        }
        receipts.append(RecordedReceipt(number: next, lines: lines, qrCodes: rendering.rasterBands, png: base + ".png"))
        next += 1
    }

    public func recordedReceipts() async -> [RecordedReceipt] { receipts }
}
