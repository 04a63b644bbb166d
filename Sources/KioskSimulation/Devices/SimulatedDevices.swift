internal import SystemPackage
public import KioskCore
public import KioskPrinter
public import KioskDaemon
public import Foundation
internal import Synchronization

/// The lights and buzzer of a simulated kiosk: remembers what was shown, for `kiosk simulate lights`.
public actor SimulatedIndicator: Indicator, LightRecorder {
    private let table: FeedbackTable
    private let clock: any ClockSource
    public private(set) var history: [RecordedLight] = []
    public private(set) var current: IndicatorPattern?
    /// When each pattern was last asked for (monotonic), for latency measurements.
    public private(set) var lastShown: [IndicatorPattern: ContinuousClock.Instant] = [:]

    public init(table: FeedbackTable = .default, clock: any ClockSource) {
        self.table = table
        self.clock = clock
    }

    public func show(_ pattern: IndicatorPattern) async {
        lastShown[pattern] = .now
        current = pattern
        let sequence = table[pattern]
        let outputs = (sequence.steps.flatMap { $0.on } + Array(sequence.hold)).map(\.rawValue)
        history.append(RecordedLight(pattern: pattern.rawValue, outputs: Array(Set(outputs)).sorted(), at: clock.read().now))
        if history.count > 200 { history.removeFirst(history.count - 200) }
    }

    public func clear() async { current = nil }

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
        let png = PNGEncoder.encode(width: rendering.width, height: max(1, rendering.height),
                                    grey: rendering.height > 0 ? rendering.pixels : [UInt8](repeating: 255, count: rendering.width))
        do {
            try Data(bytes).write(to: URL(fileURLWithPath: base + ".escpos"), options: .atomic)
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: base + ".txt"), options: .atomic)
            try Data(png).write(to: URL(fileURLWithPath: base + ".png"), options: .atomic)
        } catch {
            throw .failed(path: base, call: "write", errno: .ioError)
        }
        receipts.append(RecordedReceipt(number: next, lines: lines, qrCodes: rendering.rasterBands, png: base + ".png"))
        next += 1
    }

    public func recordedReceipts() async -> [RecordedReceipt] { receipts }
}
