internal import Foundation
internal import KioskCamera
public import KioskCore
internal import KioskExchange
internal import KioskGPIO
internal import KioskNFC
internal import KioskOpenSSL
internal import KioskPKCS11
internal import KioskPrinter
internal import KioskStore
public import Logging
internal import ServiceLifecycle
internal import Synchronization
internal import UnixSignals

#if canImport(Glibc)
    internal import Glibc
#endif

/// Why the kiosk cannot start. Each message names what to fix.
public enum DaemonError: Error, Sendable, CustomStringConvertible {
    case stateDirectory(path: String, reason: String)
    /// The state directory could be tampered with by others (world-writable, or a file of the kiosk's replaced by a
    /// link): refused, not waited for.
    case unsafeStateDirectory(path: String, reason: String)
    case store(StoreError)
    case cardKey(String)
    case crypto(String)
    case simulation(String)
    case control(ControlSocketError)
    case warnings(String)
    case configuredVenue(ConfiguredVenueError)
    case web(String)

    public var description: String {
        switch self {
        case .stateDirectory(let path, let reason): "the state directory \(path) cannot be used: \(reason)"
        case .unsafeStateDirectory(let path, let reason): "the state directory \(path) is not safe: \(reason)"
        case .store(let error): "the check-in store cannot be opened: \(error)"
        case .cardKey(let reason): "the card key cannot be used: \(reason)"
        case .crypto(let reason): "the crypto library failed: \(reason)"
        case .simulation(let reason): "the simulated hardware cannot start: \(reason)"
        case .control(let error): "the control socket cannot be opened: \(error)"
        case .warnings(let reason): "warnings cannot be fetched: \(reason)"
        case .configuredVenue(let error): error.description
        case .web(let reason): "the screen page cannot be served: \(reason)"
        }
    }
}

/// The kiosk: opens the store, starts the devices, runs the station until SIGTERM/SIGINT.
///
/// One service per device loop on swift-service-lifecycle. Shutdown stops the inputs first (reader, buttons,
/// camera, control socket, timers), lets the station finish what it was doing, turns the lights off, and closes the
/// database last.
public final class KioskDaemon: Sendable {
    public let settings: DaemonSettings
    let logger: Logger
    let store: SQLiteCheckInStore
    let crypto = OpenSSLCrypto()
    let clock: any ClockSource
    /// What `kiosk simulate` drives; nil on a board.
    public let simulation: SimulationControls?
    let nfcReader: NFCReader<OpenSSLCrypto>?
    /// The region's diary cards on the reader (`region` configured and its token open); nil otherwise.
    let diaryCards: ReaderDiaryCards?
    /// The region token's module, loaded while the daemon runs.
    let regionModule: PKCS11Module?
    let indicator: any Indicator
    let buttons: ButtonMonitor?
    let camera: (any CodeCamera)?
    /// The kiosk's voice, held for the station (which does not speak yet); stopped at shutdown.
    public let speaker: any Speaker

    /// The station's speech cues, said by `speaker` (a new one interrupts the last).
    static func speech(to speaker: any Speaker) -> @Sendable (SpeechCue) -> Void {
        { cue in
            switch cue {
            case .say(let text, let language, let voice):
                speaker.say(Utterance(text: text, language: language, voice: voice))
            case .stop: speaker.stop()
            }
        }
    }
    let runner: StationRunner
    let desk: CheckInDesk
    let reportDelivery: ReportDelivery
    let cardClaim = CardClaim()
    let warnings: DaemonWarnings?
    public let loop: StationLoop
    public let metrics = MetricsRegistry()
    let tally = Mutex(DailyTally())
    let notifier = SystemdNotifier()
    let devices = DeviceStates()
    let control: ControlSocketServer
    let started = ContinuousClock.now
    let readyAfter = Mutex<Duration?>(nil)
    let metricsAddress = Mutex<String?>(nil)
    let webAddress = Mutex<String?>(nil)
    /// The metrics and screen servers while they run.
    let endpoints = Mutex<[LocalHTTPServer]>([])

    /// The control socket's path for a state directory.
    public static func controlSocketPath(stateDirectory: String) -> String {
        (stateDirectory as NSString).appendingPathComponent("control.sock")
    }

    public init(settings: DaemonSettings, devices given: DaemonDevices, logger: Logger) throws(DaemonError) {
        self.settings = settings
        self.logger = logger
        if let problem = ScreenEndpoint.problem(in: settings) { throw .web(problem) }
        let directory = settings.stateDirectory
        try Self.prepareStateDirectory(directory)
        do { store = try SQLiteCheckInStore(directory: directory) } catch { throw .store(error) }
        let desk = CheckInDesk(store: store, crypto: crypto, policy: settings.policy)
        self.desk = desk
        let cardKey = try Self.cardKey(settings: settings, crypto: crypto)

        // The devices: handed in (real on a board, simulated by KioskSimulation).
        clock = FlooredClockSource(base: given.clock, monotonic: given.monotonic, store: store)
        indicator = given.indicator
        buttons = given.buttons
        camera = given.camera
        speaker = given.speaker
        simulation = given.simulation
        for (device, state) in given.states { devices.set(device, state) }
        let printer: any ReceiptPrinter = given.printer ?? NoPrinter()
        reportDelivery = ReportDelivery(
            printer: given.printer, paper: settings.receiptPrinter?.paper ?? .mm58,
            codePage: settings.receiptPrinter?.codePage ?? .cp1252,
            uploader: settings.reportUploadURL.map { ReportUploader(endpoint: $0) },
            exportDirectory: settings.reportExportDirectory)
        let region =
            given.nfcConnection == nil ? nil : Self.openRegion(settings: settings, devices: devices, logger: logger)
        regionModule = region?.module
        let diaryBox = Mutex<ReaderDiaryCards?>(nil)
        if let connection = given.nfcConnection {
            let reader = NFCReader(
                connection: connection, access: KioskCardAccess(cardKey: cardKey, crypto: crypto),
                logger: logger,
                desfire: region == nil
                    ? nil : ReaderDiaryCards.handler(crypto: crypto) { diaryBox.withLock { $0 } })
            nfcReader = reader
            devices.set("nfc", "starting")
        } else {
            nfcReader = nil
            devices.set("nfc", "none configured")
            logger.warning("No NFC reader configured: cards cannot be read (personal QR cards still work)")
        }
        if let nfcReader, let region {
            let cards = ReaderDiaryCards(
                reader: nfcReader, desk: DiaryDesk(keys: region.keys, crypto: crypto, policy: settings.policy),
                crypto: crypto)
            diaryBox.withLock { $0 = cards }
            diaryCards = cards
        } else {
            diaryCards = nil
        }
        warnings = try DaemonWarnings.make(settings: settings, crypto: crypto, clock: clock, logger: logger)
        if warnings == nil { devices.set("warnings", "none configured") }
        let enroller: any CardEnroller = nfcReader.map { NFCCardEnroller(reader: $0) } ?? NoReaderEnroller()
        if let code = settings.venueCode {
            try Self.bindConfiguredVenue(
                code, settings: settings, store: store, crypto: crypto, clock: clock,
                logger: logger)
        }
        do {
            runner = try StationRunner(
                configuration: settings.station, desk: desk, indicator: indicator, printer: printer, enroller: enroller,
                warnings: warnings.map { $0 as any WarningSource } ?? NoWarnings(), clock: clock, settings: store,
                devices: devices, paper: settings.receiptPrinter?.paper ?? .mm58,
                codePage: settings.receiptPrinter?.codePage ?? .cp1252,
                reports: reportDelivery, speech: Self.speech(to: given.speaker), diaryCards: diaryCards,
                logger: logger)
        } catch {
            throw .store(error)
        }
        loop = StationLoop(runner: runner)
        let path = Self.controlSocketPath(stateDirectory: directory)
        let handler = ControlHandlerBox()
        do {
            control = try ControlSocketServer(path: path, trouble: Self.socketTrouble(logger)) { request in
                await handler.handle(request)
            }
        } catch {
            throw .control(error)
        }
        handler.set(self)
        declareMetrics()
    }

    /// Runs until SIGTERM or SIGINT.
    public func run() async throws {
        let endpoints = [MetricsEndpoint.open(daemon: self), ScreenEndpoint.open(daemon: self)].compactMap { $0 }
        self.endpoints.withLock { $0 = endpoints }
        nfcReader?.start()
        buttons?.start()
        let services: [any Service] = [
            StationService(daemon: self),
            WatchdogService(daemon: self),
            TickService(daemon: self),
            ControlService(daemon: self),
            NFCService(daemon: self),
            ButtonService(daemon: self),
            CameraService(daemon: self),
            WarningsService(daemon: self),
        ]
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) },
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: logger))
        do {
            try await group.run()
        } catch {
            logger.error("Kiosk stopped on an error", metadata: ["error": "\(error)"])
            await shutDown(endpoints)
            throw error
        }
        await shutDown(endpoints)
    }

    /// Called once the services run and SIGTERM is trapped: the control socket answers from here on, so whoever
    /// sees the kiosk ready (`kiosk status`, systemd, the tests) can stop it cleanly at once.
    func startAnswering() {
        control.start()
        readyAfter.withLock { $0 = ContinuousClock.now - started }
        notifier.ready(status: "Ready")
        logger.notice("Kiosk ready", metadata: ["simulated": "\(simulation != nil)"])
    }

    /// Whether the control socket and the local pages still accept connections (`SocketListener.isAccepting`).
    var socketsAccepting: Bool {
        control.isAccepting && endpoints.withLock { $0.allSatisfy(\.isAccepting) }
    }

    /// Where a socket's accept trouble goes: the log, once when it starts and once when it ends.
    var socketTrouble: @Sendable (String) -> Void { Self.socketTrouble(logger) }

    static func socketTrouble(_ logger: Logger) -> @Sendable (String) -> Void {
        { message in logger.error("\(message)") }
    }

    private func shutDown(_ endpoints: [LocalHTTPServer]) async {
        notifier.stopping()
        control.stop()
        for endpoint in endpoints { endpoint.stop() }
        nfcReader?.stop()
        buttons?.stop()
        simulation?.cards.stop()
        speaker.stop()
        // The one place the lights go off at shutdown: no event can start a pattern any more (the station loop has
        // ended), and `clear()` stops a pattern still playing and waits for it before turning the lines off.
        await indicator.clear()
        do { try store.close() } catch {
            logger.error("Database not closed cleanly", metadata: ["store.error": "\(error)"])
        }
        logger.notice("Kiosk stopped")
    }

    /// Whether start-up has finished, and how long it took.
    public var readyTime: Duration? { readyAfter.withLock { $0 } }

    // MARK: Start-up helpers

    /// The kiosk's own files in the state directory, which must never be links (a planted link would make the kiosk
    /// write its database or its key wherever it points).
    static let stateFiles = [
        "checkins.sqlite", "checkins.sqlite-wal", "checkins.sqlite-shm", "card-key", "warnings",
    ]

    /// Creates the state directory (mode 0700) if it is missing, and checks that the kiosk can write to it and that
    /// nobody else can: a directory that others may write to (mode o+w) or one where a file of the kiosk's is a link
    /// is refused with the fix in the message. The corresponding C function is `lstat`.
    public static func prepareStateDirectory(_ directory: String) throws(DaemonError) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
        } catch {
            throw .stateDirectory(path: directory, reason: "cannot create it (\(error.localizedDescription))")
        }
        var status = stat()
        guard stat(directory, &status) == 0 else { throw .stateDirectory(path: directory, reason: "cannot be read") }
        if status.st_mode & S_IWOTH != 0 {
            throw .unsafeStateDirectory(
                path: directory,
                reason:
                    "anyone may write to it (mode \(String(status.st_mode & 0o7777, radix: 8))); run chmod 700 \(directory)"
            )
        }
        for name in stateFiles {
            let path = (directory as NSString).appendingPathComponent(name)
            var file = stat()
            if lstat(path, &file) == 0, file.st_mode & S_IFMT == S_IFLNK {
                throw .unsafeStateDirectory(
                    path: directory, reason: "\(name) is a symbolic link; remove it (rm \(path)) or restore the file")
            }
        }
        guard access(directory, W_OK) == 0 else { throw .stateDirectory(path: directory, reason: "not writable") }
    }

    /// The card key: from the settings (a credential), else the kiosk's own, created once in the state directory.
    static func cardKey(settings: DaemonSettings, crypto: OpenSSLCrypto) throws(DaemonError) -> [UInt8] {
        if let key = settings.cardKey {
            guard key.count >= 16 else { throw .cardKey("it must be at least 16 bytes") }
            return key
        }
        let path = (settings.stateDirectory as NSString).appendingPathComponent("card-key")
        if let data = FileManager.default.contents(atPath: path) {
            guard data.count == 32 else { throw .cardKey("\(path) is damaged (expected 32 bytes)") }
            return [UInt8](data)
        }
        let fresh: [UInt8]
        do { fresh = try crypto.randomBytes(count: 32) } catch { throw .crypto("\(error)") }
        let created = FileManager.default.createFile(
            atPath: path, contents: Data(fresh), attributes: [.posixPermissions: 0o600])
        guard created else { throw .cardKey("\(path) cannot be written") }
        return fresh
    }

    /// Binds `venue.code` before the station starts: saved in the station state, as if staff had bound it. Nothing
    /// changes when the kiosk is already bound to that venue; another venue is refused while visitors may still be
    /// checked in at the current one.
    static func bindConfiguredVenue(
        _ code: String, settings: DaemonSettings, store: SQLiteCheckInStore,
        crypto: OpenSSLCrypto, clock: any ClockSource, logger: Logger
    ) throws(DaemonError) {
        let saved: StationState
        do { saved = try store.loadStationState() ?? .initial } catch { throw .store(error) }
        let next: StationState?
        do {
            next = try saved.bindingConfiguredVenue(
                code, configuration: settings.station, crypto: crypto, now: clock.read())
        } catch {
            throw .configuredVenue(error)
        }
        guard let next else {
            logger.info("The configured venue is the one this kiosk is bound to")
            return
        }
        do { try store.saveStationState(next) } catch { throw .store(error) }
        logger.notice("Venue bound from the configuration (venue.code)")
    }

    func declareMetrics() {
        metrics.declare(
            "kiosk_taps_previous_day", .gauge, help: "Cards tapped and card codes shown on the last whole UTC day.")
        metrics.declare("kiosk_check_ins_previous_day", .gauge, help: "Check-ins stored on the last whole UTC day.")
        metrics.declare("kiosk_check_outs_previous_day", .gauge, help: "Check-outs stored on the last whole UTC day.")
        metrics.declare(
            "kiosk_refusals_previous_day", .gauge, help: "Taps and codes refused on the last whole UTC day, by reason.")
        metrics.declare("kiosk_expiry_runs_total", .counter, help: "Runs of the 14-day expiry.")
        metrics.declare("kiosk_expired_stays_total", .counter, help: "Stays deleted by expiry.")
        metrics.declare("kiosk_prints_total", .counter, help: "Receipts printed (warning slips are not counted).")
        metrics.declare(
            "kiosk_print_failures_total", .counter, help: "Receipts that did not print (warning slips are not counted)."
        )
        metrics.declare("kiosk_enrolments_total", .counter, help: "Cards enrolled.")
        metrics.declare(
            "kiosk_store_bytes", .gauge,
            help: "Size of the check-in database files at the last expiry run, in whole MiB.")
        metrics.declare("kiosk_clock_synchronized", .gauge, help: "1 when the clock is synchronized.")
        metrics.declare("kiosk_device_up", .gauge, help: "1 when the device works, by device.")
        metrics.declare("kiosk_ready_seconds", .gauge, help: "Time from start to ready.")
    }

    /// Copies the station's counters and the store's size into the metrics (called by the timer).
    func refreshMetrics() async {
        let counters = await runner.counters
        let reading = clock.read()
        let now = Int64(reading.now.timeIntervalSince1970)
        let tally = self.tally.withLock { tally in
            tally.update(counters, now: now)
            tally.sampleStore(expiryRuns: counters.expiryRuns) { storeBytes() }
            return tally
        }
        if let day = tally.previousDay {
            metrics.set("kiosk_taps_previous_day", to: Double(day.taps))
            metrics.set("kiosk_check_ins_previous_day", to: Double(day.checkIns))
            metrics.set("kiosk_check_outs_previous_day", to: Double(day.checkOuts))
            for (reason, count) in day.refusals {
                metrics.set("kiosk_refusals_previous_day", labels: ["reason": reason], to: Double(count))
            }
        }
        if let bytes = tally.storeBytes { metrics.set("kiosk_store_bytes", to: Double(bytes)) }
        metrics.set("kiosk_expiry_runs_total", to: Double(counters.expiryRuns))
        metrics.set("kiosk_expired_stays_total", to: Double(counters.expiredStays))
        metrics.set("kiosk_prints_total", to: Double(counters.prints))
        metrics.set("kiosk_print_failures_total", to: Double(counters.printFailures))
        metrics.set("kiosk_enrolments_total", to: Double(counters.enrolments))
        metrics.set("kiosk_clock_synchronized", to: reading.isSynchronized ? 1 : 0)
        for (device, state) in devices.all() {
            metrics.set(
                "kiosk_device_up", labels: ["device": device],
                to: state == "ok" || state == "simulated" ? 1 : 0)
        }
        if let ready = readyTime { metrics.set("kiosk_ready_seconds", to: Double(ready.wholeMilliseconds) / 1000) }
    }

    func storeBytes() -> Int {
        let directory = settings.stateDirectory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasPrefix(SQLiteCheckInStore.fileName) }
            .compactMap {
                try? FileManager.default.attributesOfItem(atPath: (directory as NSString).appendingPathComponent($0))[
                    .size] as? Int
            }
            .reduce(0, +)
    }
}

extension KioskDaemon {
    /// Opens the region's token for diary cards (`region`): its module, logged in with the PIN from its
    /// credential. A token that cannot be opened leaves diary cards unread (the device state `region` says why,
    /// without the PIN); the kiosk's own cards work as before.
    static func openRegion(settings: DaemonSettings, devices: DeviceStates, logger: Logger)
        -> (module: PKCS11Module, keys: PKCS11RegionKeys)?
    {
        guard let region = settings.region else { return nil }
        do throws(PKCS11Error) {
            guard let pinFile = settings.regionPINFile else {
                throw PKCS11Error.invalidArgument("no credentials directory for region.pinCredential")
            }
            let pin = try PKCS11PIN(contentsOfFile: pinFile)
            let module = try PKCS11Module(path: region.module)
            let keys = try PKCS11RegionKeys.open(module: module, configuration: region, pin: pin)
            devices.set("region", "ok")
            return (module, keys)
        } catch {
            devices.set("region", "unavailable: \(error)")
            logger.error("Region token unavailable: diary cards are not read", metadata: ["region.error": "\(error)"])
            return nil
        }
    }
}

/// A kiosk without a reader cannot enrol cards.
struct NoReaderEnroller: CardEnroller {
    func enrol(_ secret: CardSecret) async throws(StationFailure) {
        throw .enrolment(reason: "this kiosk has no NFC reader configured (nfc.connection)")
    }
}

/// Device states by name ("nfc" → "ok"), for status, metrics and the status slip. No personal data.
final class DeviceStates: DeviceStatusSource {
    private let states = Mutex<[String: String]>([:])

    func set(_ device: String, _ state: String) { states.withLock { $0[device] = state } }
    func all() -> [String: String] { states.withLock { $0 } }
    func deviceStates() async -> [String: String] { all() }
}

/// Lets the control socket's handler reach the daemon, which is created after the socket.
final class ControlHandlerBox: Sendable {
    private let daemon = Mutex<KioskDaemon?>(nil)

    func set(_ value: KioskDaemon) { daemon.withLock { $0 = value } }

    func handle(_ request: String) async -> String {
        guard let daemon = daemon.withLock({ $0 }) else {
            return ControlResponse.failure("the kiosk is still starting").jsonLine
        }
        return await daemon.handleControl(request)
    }
}

extension ControlResponse {
    var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(self) else {
            return #"{"ok":false,"lines":["internal error"],"steps":[]}"#
        }
        return String(decoding: data, as: UTF8.self)
    }
}
