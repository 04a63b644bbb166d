public import Foundation
public import KioskCamera
public import KioskCore
public import KioskGPIO
public import KioskPrinter

/// The devices a kiosk runs on, handed to `KioskDaemon` by whoever starts it: the board's own (`BoardDevices`), or
/// simulated ones (the `KioskSimulation` module). The daemon never chooses or creates them itself, so it never
/// links a simulated device.
public struct DaemonDevices: Sendable {
    /// The wall clock; the daemon keeps a lower bound of the real time over it (`FlooredClockSource`).
    public var clock: any ClockSource
    /// The monotonic clock that bound moves with.
    public var monotonic: any MonotonicClock
    public var indicator: any Indicator
    /// The receipt printer; nil when none is attached.
    public var printer: (any ReceiptPrinter)?
    public var buttons: ButtonMonitor?
    public var camera: (any CodeCamera)?
    /// The libnfc connection string of the reader; nil when none is attached.
    public var nfcConnection: String?
    /// Each device's state at start ("lights" → "ok", "simulated", "none configured", "unavailable: …").
    public var states: [String: String]
    /// Present on simulated hardware only: what `kiosk simulate` drives.
    public var simulation: SimulationControls?
    /// The kiosk's voice (`BoardSpeaker` on a board, a recording speaker when simulated, `NoSpeaker` when none is
    /// given). The daemon holds it and stops it at shutdown; the station does not speak yet.
    public var speaker: any Speaker

    public init(
        clock: any ClockSource, indicator: any Indicator, printer: (any ReceiptPrinter)?, buttons: ButtonMonitor?,
        camera: (any CodeCamera)?, nfcConnection: String?, states: [String: String],
        simulation: SimulationControls? = nil, monotonic: any MonotonicClock = SystemMonotonicClock(),
        speaker: any Speaker = NoSpeaker()
    ) {
        self.clock = clock
        self.monotonic = monotonic
        self.indicator = indicator
        self.printer = printer
        self.buttons = buttons
        self.camera = camera
        self.nfcConnection = nfcConnection
        self.states = states
        self.simulation = simulation
        self.speaker = speaker
    }
}

/// What a person does at a simulated kiosk, as the daemon's control socket needs it (`kiosk simulate …`). The
/// `KioskSimulation` module implements each part; a board has none of them.
public struct SimulationControls: Sendable {
    public var clock: any SimulatedClock
    public var cards: any SimulatedCardSlot
    public var lights: any LightRecorder
    public var receipts: any ReceiptRecorder
    public var codes: any CodeFeed

    public init(
        clock: any SimulatedClock, cards: any SimulatedCardSlot, lights: any LightRecorder,
        receipts: any ReceiptRecorder, codes: any CodeFeed
    ) {
        self.clock = clock
        self.cards = cards
        self.lights = lights
        self.receipts = receipts
        self.codes = codes
    }
}

/// A clock that can be moved and told whether it is synchronized.
public protocol SimulatedClock: ClockSource {
    /// Moves the simulated time forward by `seconds` (finite, positive, at most `SimulatedTime.maximumOffset` ahead
    /// of the real time in all: a clock asked for more stops there).
    func advance(by seconds: TimeInterval)
    func setSynchronized(_ synchronized: Bool)
}

/// How far a simulated clock may run ahead of the real time: a century, far beyond any retention or event window,
/// and far inside what the kiosk's day numbers and timestamps can hold.
public enum SimulatedTime {
    public static let maximumOffset: TimeInterval = 100 * 366 * 86_400
}

/// The reader's field: numbered cards are placed on it and taken away.
public protocol SimulatedCardSlot: Sendable {
    /// Whether any card lies on the reader.
    var hasCard: Bool { get }
    /// The number of the card on the reader, if it is one of the numbered cards.
    var cardOnReader: Int? { get }
    func place(card number: Int)
    /// Places a card this kiosk never wrote (another kiosk's, or a transit card).
    func placeForeignCard()
    /// Places diary card `number`, a MIFARE DESFire EV1 whose memory is a file in `directory` (the simulation's own
    /// when nil), which several simulated kiosks may share: the card walks between them. Returns why it could not
    /// be placed, or nil.
    func placeDiaryCard(number: Int, directory: String?, cipher: any AES128Cipher & TripleDESCipher) -> String?
    func remove()
    /// Whether card `number` was placed before (its memory is kept).
    func knows(card number: Int) -> Bool
    /// Keeps the cards' memories across restarts.
    func save()
    func stop()
}

/// One light pattern shown, with the outputs it drove: when it started, when its steps end (the start plus the
/// pattern's duration), and when a newer pattern or turning the lights off cut it short.
public struct RecordedLight: Sendable, Codable, Equatable {
    public let pattern: String
    public let outputs: [String]
    public let at: Date
    public let ends: Date?
    public let stopped: Date?

    public init(pattern: String, outputs: [String], at: Date, ends: Date? = nil, stopped: Date? = nil) {
        self.pattern = pattern
        self.outputs = outputs
        self.at = at
        self.ends = ends
        self.stopped = stopped
    }
}

/// The lights' history.
public protocol LightRecorder: Sendable {
    func recordedLights() async -> [RecordedLight]
}

/// One receipt printed: its text lines, how many QR codes it carries and its picture.
public struct RecordedReceipt: Sendable, Codable, Equatable {
    public let number: Int
    public let lines: [String]
    public let qrCodes: Int
    public let png: String

    public init(number: Int, lines: [String], qrCodes: Int, png: String) {
        self.number = number
        self.lines = lines
        self.qrCodes = qrCodes
        self.png = png
    }
}

/// The receipts printed so far.
public protocol ReceiptRecorder: Sendable {
    func recordedReceipts() async -> [RecordedReceipt]
}

/// What is held up to the camera.
public protocol CodeFeed: Sendable {
    func show(_ image: GreyImage)
    func show(text: String) throws
    func clear()
    /// Plays a 1280×720 camera sequence by name (`empty`, `passerby`, `held`, `moving`, `phone`) in real time, 30
    /// frames a second, as a camera delivers it; nil for a name it does not know.
    func playLive(_ name: String, looping: Bool) -> LiveCameraSequence?
    /// Frames of live sequences skipped so far because the frame before was still being scanned.
    var framesDropped: Int { get }
    /// CPU time spent making the sequences' frames (a board's camera makes them without the kiosk's CPU), seconds.
    var renderCPUSeconds: Double { get }
}

/// A camera sequence playing in real time: when it started, its frame time, and the first frame in which its code
/// is fully visible (nil: it shows none).
public struct LiveCameraSequence: Sendable {
    public var start: ContinuousClock.Instant
    public var frameInterval: Duration
    public var frameCount: Int
    public var firstVisibleFrame: Int?

    public init(start: ContinuousClock.Instant, frameInterval: Duration, frameCount: Int, firstVisibleFrame: Int?) {
        self.start = start
        self.frameInterval = frameInterval
        self.frameCount = frameCount
        self.firstVisibleFrame = firstVisibleFrame
    }
}
