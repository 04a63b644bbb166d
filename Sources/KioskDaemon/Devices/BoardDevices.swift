internal import KioskCamera
internal import KioskCore
internal import KioskGPIO
internal import KioskPrinter
internal import KioskSpeech
public import Logging

/// The board's own devices, as the configuration names them: the system clock, GPIO lights and buttons, the
/// receipt printer, the camera, the NFC reader's connection and the speaker. A device that cannot be opened is left
/// out with its state saying why; the kiosk runs without it (the speaker stays, and tries again with each
/// utterance: a USB sound card may come later).
public enum BoardDevices {
    public static func open(settings: DaemonSettings, logger: Logger) -> DaemonDevices {
        var states = [String: String]()
        let (indicator, buttons) = openLights(settings.lightsAndButtons, states: &states, logger: logger)
        var printer: (any ReceiptPrinter)?
        if let configuration = settings.receiptPrinter {
            printer = AttendedPrinter(device: PrinterDevice(configuration))
            states["printer"] = "configured"
        } else {
            states["printer"] = "none configured"
        }
        var camera: (any CodeCamera)?
        if let device = settings.cameraDevice {
            camera = CameraScanner(
                configuration: .init(
                    device: device, width: settings.cameraWidth,
                    height: settings.cameraHeight,
                    framesToForget: settings.cameraFramesUntilGone),
                logger: logger)
        } else {
            states["camera"] = "none configured"
        }
        let speaker = BoardSpeaker(
            synthesizer: EspeakSynthesizer(rate: settings.speech.rate),
            player: ALSAPlayer(device: settings.speech.device, volume: settings.speech.volume), logger: logger)
        // Opens the sound device once to say whether speech works here; a failure is logged once, by the speaker.
        states["speech"] = speaker.check()
        return DaemonDevices(
            clock: SystemClockSource(source: settings.clockSource), indicator: indicator,
            printer: printer, buttons: buttons, camera: camera, nfcConnection: settings.nfcConnection,
            states: states, speaker: speaker)
    }

    static func openLights(
        _ configuration: LightsAndButtonsConfiguration?, states: inout [String: String],
        logger: Logger
    ) -> (any Indicator, ButtonMonitor?) {
        guard let configuration, !configuration.outputs.isEmpty || !configuration.buttons.isEmpty else {
            states["lights"] = "none configured"
            states["buttons"] = "none configured"
            return (NoLights(), nil)
        }
        var indicator: any Indicator = NoLights()
        do {
            let table = try configuration.feedbackTable()
            indicator = try GPIOIndicator(pins: configuration.outputs, table: table, logger: logger)
            states["lights"] = "ok"
        } catch {
            states["lights"] = "unavailable: \(error)"
            logger.error(
                "Lights unavailable: the kiosk runs without lights and buzzer", metadata: ["gpio.error": "\(error)"])
        }
        var buttons: ButtonMonitor?
        if !configuration.buttons.isEmpty {
            do {
                buttons = try ButtonMonitor(
                    buttons: configuration.buttons,
                    debounce: .milliseconds(configuration.debounceMilliseconds))
                states["buttons"] = "ok"
            } catch {
                states["buttons"] = "unavailable: \(error)"
                logger.error("Buttons unavailable", metadata: ["gpio.error": "\(error)"])
            }
        }
        return (indicator, buttons)
    }
}
