internal import Foundation
public import KioskCore
internal import KioskStore
public import Logging
internal import Synchronization

/// A state directory or check-in store that cannot be used when the kiosk starts — storage read-only, full, or gone
/// (a worn SD card, a stick not mounted) — is a fault of the board, not of the configuration, and it may pass. So the
/// kiosk does not exit (exit status 2 tells systemd never to restart it): it waits, with the error pattern on the
/// lights, the problem and its fix on the screen page and in systemd's status (it is alive: ready and watched), and
/// tries again every few seconds. Once the store opens, the kiosk starts as usual. A damaged database or one from a
/// newer kiosk is not waited for: no waiting mends it.
public enum StorageWait {
    public static let retryInterval: Duration = .seconds(5)

    /// Why the storage cannot be used now, or nil when it can (the store opened and closed again).
    public static func problem(stateDirectory: String) -> DaemonError? {
        do {
            try KioskDaemon.prepareStateDirectory(stateDirectory)
            let store = try SQLiteCheckInStore(directory: stateDirectory)
            try store.close()
            return nil
        } catch let error as DaemonError {
            return error
        } catch let error as StoreError {
            return .store(error)
        } catch {
            return .stateDirectory(path: stateDirectory, reason: "\(error)")
        }
    }

    /// Whether waiting can mend `error`.
    public static func isPassing(_ error: DaemonError) -> Bool {
        switch error {
        case .stateDirectory: true
        case .store(.storageFull), .store(.readOnly), .store(.cannotOpen), .store(.ioFailure): true
        default: false
        }
    }

    /// Returns once the storage can be used: at once when it can, after waiting as described above when it cannot
    /// for a passing reason; throws the problem when waiting cannot mend it.
    public static func untilUsable(
        settings: DaemonSettings, devices: DaemonDevices, logger: Logger, retry: Duration = retryInterval
    ) async throws(DaemonError) {
        guard var problem = problem(stateDirectory: settings.stateDirectory) else { return }
        guard isPassing(problem) else { throw problem }
        logger.error("Storage unavailable: waiting for it", metadata: ["storage.problem": "\(problem)"])
        let notifier = SystemdNotifier()
        let view = Mutex(Self.view(problem, language: settings.station.language))
        let page = ScreenEndpoint.open(
            settings: settings, logger: logger, view: { view.withLock { $0 } }, press: nil)
        defer { page?.stop() }
        await devices.indicator.show([.error])
        notifier.ready(status: "Waiting for storage: \(problem)")
        while true {
            notifier.watchdog()
            try? await Task.sleep(for: retry)
            if Task.isCancelled { throw problem }
            guard let still = Self.problem(stateDirectory: settings.stateDirectory) else { break }
            guard isPassing(still) else { throw still }
            if still.description != problem.description {
                problem = still
                view.withLock { $0 = Self.view(still, language: settings.station.language) }
                notifier.status("Waiting for storage: \(still)")
            }
        }
        await devices.indicator.clear()
        logger.notice("Storage available again: starting")
    }

    /// The page while the storage is unusable: what is wrong in the kiosk's language, and the technical reason for
    /// the field worker as its own line.
    static func view(_ problem: DaemonError, language: Language) -> ScreenModel {
        let texts = Catalog.of(language)
        return ScreenModel(
            kind: "error", title: texts[.stationOutOfServiceTitle],
            lines: [texts[.stationOutOfServiceBody], "\(problem)"], language: language.rawValue)
    }
}
