public import Foundation
public import KioskCore
public import KioskDaemon
internal import KioskSpeech
public import Logging

/// A whole simulated kiosk's devices, kept under `<state directory>/simulation`: a clock that can be moved, the
/// PN532 emulator driven through the real libnfc, lights that record what they showed, a printer that writes each
/// receipt as files, a camera fed rendered frames through the real libzbar, and a speaker that records each
/// utterance, synthesized by the real espeak-ng, as files (`speech/`).
public struct SimulatedHardware: Sendable {
    public let clock: SimulatedClockSource
    public let reader: SimulatedCardReader
    public let lights: SimulatedIndicator
    public let printer: FileReceiptPrinter
    public let camera: FrameFeedCamera
    public let speaker: RecordingSpeaker

    /// The folder of a simulated kiosk's devices in its state directory: its presence marks the directory as a
    /// simulated kiosk's.
    public static func folder(inStateDirectory stateDirectory: String) -> String {
        (stateDirectory as NSString).appendingPathComponent("simulation")
    }

    /// Starts the simulated devices for a kiosk whose state lives in `settings.stateDirectory`.
    public init(settings: DaemonSettings) throws(DaemonError) {
        try KioskDaemon.prepareStateDirectory(settings.stateDirectory)
        let directory = Self.folder(inStateDirectory: settings.stateDirectory)
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .simulation("the folder \(directory) cannot be created")
        }
        clock = SimulatedClockSource(file: (directory as NSString).appendingPathComponent("clock.json"))
        do { reader = try SimulatedCardReader(directory: directory) } catch {
            throw .simulation("the PN532 emulator did not start: \(error)")
        }
        lights = SimulatedIndicator(clock: clock)
        printer = FileReceiptPrinter(
            directory: (directory as NSString).appendingPathComponent("receipts"),
            paper: settings.receiptPrinter?.paper ?? .mm58)
        camera = FrameFeedCamera(framesToForget: 3, width: settings.cameraWidth, height: settings.cameraHeight)
        speaker = RecordingSpeaker(
            directory: (directory as NSString).appendingPathComponent("speech"),
            synthesizer: EspeakSynthesizer(rate: settings.speech.rate))
    }

    /// The devices as the daemon takes them.
    public var devices: DaemonDevices {
        DaemonDevices(
            clock: clock, indicator: lights, printer: printer, buttons: nil, camera: camera,
            nfcConnection: reader.connection,
            states: ["lights": "simulated", "printer": "simulated", "buttons": "simulated", "speech": "simulated"],
            simulation: SimulationControls(
                clock: clock, cards: reader, lights: lights, receipts: printer, codes: camera),
            monotonic: clock, speaker: speaker)
    }
}

extension SimulatedClockSource: SimulatedClock {}
extension SimulatedCardReader: SimulatedCardSlot {}
extension FrameFeedCamera: CodeFeed {
    public func playLive(_ name: String, looping: Bool) -> LiveCameraSequence? {
        let kinds: [String: CameraSequence.Kind] = [
            "empty": .emptyScene, "passerby": .passerby, "held": .codeHeldStill, "moving": .codeMoving,
            "phone": .phoneScreen,
        ]
        guard let kind = kinds[name] ?? CameraSequence.Kind(rawValue: name) else { return nil }
        let sequence = CameraSequence(kind)
        // Found before it plays (rendering a frame takes a few milliseconds).
        let firstVisible =
            sequence.codes.isEmpty
            ? nil : (0..<sequence.frameCount).first { !sequence.frame($0).fullyVisible.isEmpty }
        let start = playLive(sequence, looping: looping)
        return LiveCameraSequence(
            start: start, frameInterval: CameraSequence.frameInterval, frameCount: sequence.frameCount,
            firstVisibleFrame: firstVisible)
    }
}
