internal import Foundation
internal import KioskCamera
internal import KioskCore
internal import KioskGPIO
internal import KioskNFC
internal import Logging
internal import ServiceLifecycle
internal import Synchronization

/// Hands queued events to the station, one at a time, until shutdown. (The lights go off once every service has
/// ended, in `KioskDaemon.run`'s shutdown, just before the database closes.)
struct StationService: Service {
    let daemon: KioskDaemon

    func run() async throws {
        await withGracefulShutdownHandler {
            await daemon.loop.run()
        } onGracefulShutdown: {
            daemon.loop.finish()
        }
    }
}

/// Card reader events → station events; the reader's state → device states.
struct NFCService: Service {
    let daemon: KioskDaemon

    func run() async throws {
        guard let reader = daemon.nfcReader else { return await waitForShutdown() }
        await withGracefulShutdownHandler {
            for await event in reader.events {
                switch event {
                case .card(let result):
                    daemon.devices.set("nfc", "ok")
                    let read = CardRead(result)
                    if !daemon.cardClaim.offer(read) { daemon.loop.submit(.cardRead(read)) }
                case .removed:
                    daemon.loop.submit(.cardRemoved)
                case .enrolled:
                    daemon.devices.set("nfc", "ok")
                case .readerUnavailable(let error):
                    daemon.devices.set("nfc", "unavailable: \(error)")
                }
            }
        } onGracefulShutdown: {
            reader.stop()
        }
    }
}

/// Button presses → station events. The two buttons step through the screen's choices: the one wired as `confirm`
/// chooses the selected choice, the one wired as `cancel` moves to the next choice (`NavigationButton`), each on
/// release; either one held for `CheckInMachine.speechHoldTime` says the screen (`ButtonGestures`), and its release
/// then does nothing more.
struct ButtonService: Service {
    let daemon: KioskDaemon

    func run() async throws {
        guard let buttons = daemon.buttons else { return await waitForShutdown() }
        let holdNanoseconds = UInt64(CheckInMachine.speechHoldTime * 1_000_000_000)
        let gestures = SharedGestures(ButtonGestures<ButtonRole>(holdNanoseconds: holdNanoseconds))
        let start = ContinuousClock.now
        let elapsed: @Sendable () -> UInt64 = {
            let parts = (ContinuousClock.now - start).components
            return UInt64(max(parts.seconds, 0)) * 1_000_000_000 + UInt64(max(parts.attoseconds, 0) / 1_000_000_000)
        }
        let loop = daemon.loop
        let submit: @Sendable (ButtonGestures<ButtonRole>.Gesture) -> Void = { gesture in
            switch gesture {
            case .tap(let button): loop.submit(.navigated(button == .confirm ? .choose : .next))
            case .hold: loop.submit(.speakRequested)
            }
        }
        await withGracefulShutdownHandler {
            await withTaskGroup(of: Void.self) { group in
                // A hold is said while the button is still down: its deadline is looked at ten times a second.
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(100))
                        for gesture in gestures.state.withLock({ $0.due(at: elapsed()) }) { submit(gesture) }
                    }
                }
                for await event in buttons.events {
                    if let gesture = gestures.state.withLock({
                        $0.edge(event.button, pressed: event.pressed, at: elapsed())
                    }) {
                        submit(gesture)
                    }
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            buttons.stop()
        }
    }
}

/// The buttons' gestures, shared by the edge reader and the hold watcher.
private final class SharedGestures: Sendable {
    let state: Mutex<ButtonGestures<ButtonRole>>
    init(_ gestures: ButtonGestures<ButtonRole>) { state = Mutex(gestures) }
}

/// Codes the camera read → station events; the camera's state → device states.
struct CameraService: Service {
    let daemon: KioskDaemon

    func run() async throws {
        guard let camera = daemon.camera else { return await waitForShutdown() }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await camera.run() }
            group.addTask {
                for await event in camera.events {
                    switch event {
                    case .code(let text): daemon.loop.submit(.codeScanned(text))
                    case .state(.running): daemon.devices.set("camera", daemon.simulation != nil ? "simulated" : "ok")
                    case .state(.starting): daemon.devices.set("camera", "starting")
                    case .state(.unavailable(let reason)):
                        daemon.devices.set("camera", "unavailable: \(reason.message)")
                    }
                }
            }
            await waitForShutdown()
            group.cancelAll()
        }
    }
}

/// The station's timer: a tick every interval (staff timeout, expiry runs), the clock's state when it changes, and
/// fresh metrics.
struct TickService: Service {
    let daemon: KioskDaemon

    func run() async throws {
        var synchronized: Bool?
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let reading = daemon.clock.read()
            if reading.isSynchronized != synchronized {
                if synchronized != nil || !reading.isSynchronized {
                    daemon.loop.submit(.clockChanged(reading))
                }
                synchronized = reading.isSynchronized
                daemon.logger.notice(
                    reading.isSynchronized ? "Clock synchronized" : "Clock not synchronized: check-ins paused")
            }
            daemon.loop.submit(.tick)
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: daemon.settings.tickInterval) }
        }
    }
}

/// Pings systemd's watchdog while the station keeps handling events (ticks arrive every second, so a station stuck
/// in a device call stops the pings and systemd restarts the kiosk) and its sockets keep accepting (one whose accept
/// has failed for half a minute — the file table full, memory gone — stops the pings too).
struct WatchdogService: Service {
    let daemon: KioskDaemon

    func run() async throws {
        guard let interval = daemon.notifier.watchdogPingInterval else { return await waitForShutdown() }
        var last = -1
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let handled = daemon.loop.eventsHandled
            let accepting = daemon.socketsAccepting
            if handled != last && accepting {
                daemon.notifier.watchdog()
                last = handled
            } else if !accepting {
                daemon.logger.error("Kiosk sockets not accepting: watchdog not pinged")
            } else {
                daemon.logger.error("Station not responding: watchdog not pinged")
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
        }
    }
}

/// The control socket lives as long as the services (it was started before them, to be ready early).
struct ControlService: Service {
    let daemon: KioskDaemon

    func run() async throws {
        // The service group traps the shutdown signals before it runs any service.
        daemon.startAnswering()
        await waitForShutdown()
        daemon.control.stop()
    }
}

/// The Prometheus text endpoint, on loopback only.
enum MetricsEndpoint {
    /// Binds and starts the endpoint at `metrics.listen` (before the kiosk says it is ready, so `status` shows its
    /// address); nil when none is configured or it cannot listen (logged: the kiosk runs without it).
    static func open(daemon: KioskDaemon) -> LocalHTTPServer? {
        guard let listen = daemon.settings.metricsListen, let (host, port) = parse(listen) else { return nil }
        let metrics = daemon.metrics
        let boundPort = Mutex(port)
        let server: LocalHTTPServer
        do {
            server = try LocalHTTPServer(host: host, port: port, trouble: daemon.socketTrouble) { request in
                // The page's rule for the Host header: a name an attacker controls (DNS rebinding) reads nothing.
                guard
                    ScreenRequestGuard(listenHost: host, port: boundPort.withLock { $0 }).isKioskHost(
                        request.header("Host") ?? "")
                else { return .text(421, "The metrics are served for this machine only.\n") }
                guard request.path == "/metrics" else { return .text(404, "Not found: the metrics are at /metrics.\n") }
                guard request.method == "GET" || request.method == "HEAD" else { return .text(405, "GET only.\n") }
                // Read when scraped (every 15 s or so): counters as they are now, the store's size from the disk.
                await daemon.refreshMetrics()
                return LocalHTTPResponse(
                    status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")],
                    body: Array(metrics.exposition().utf8))
            }
        } catch {
            daemon.logger.error("Metrics endpoint unavailable", metadata: ["listen": "\(listen)", "error": "\(error)"])
            return nil
        }
        boundPort.withLock { $0 = server.port }
        server.start()
        daemon.metricsAddress.withLock { $0 = server.authority }
        return server
    }

    /// "127.0.0.1:9464" → host and port; only loopback addresses are accepted (port 0: a free one).
    static func parse(_ listen: String) -> (String, Int)? {
        guard let address = try? ListenAddress.parse(listen, allowingAnyPort: true).get(), address.isLoopback else {
            return nil
        }
        return (address.host, address.port)
    }
}

/// Sleeps until graceful shutdown (for services with nothing to run on this kiosk).
func waitForShutdown() async {
    try? await gracefulShutdown()
}
