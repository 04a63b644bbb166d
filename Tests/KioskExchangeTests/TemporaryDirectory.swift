import Foundation

/// A fresh directory under the system's temporary folder, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        path = url.path
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Mounts a tmpfs of `kilobytes` here (needs CAP_SYS_ADMIN, as root on the build machines); returns false if
    /// the kernel refuses.
    func mountTmpfs(kilobytes: Int, readOnly: Bool = false) -> Bool {
        run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(kilobytes)k\(readOnly ? ",ro" : "")", "tmpfs", path]) == 0
    }

    func unmount() { _ = run("/bin/umount", [path]) }

    private func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Whether this process may mount file systems (checked once by trying).
    static let canMount: Bool = {
        guard let probe = try? TemporaryDirectory() else { return false }
        defer { probe.remove() }
        guard probe.mountTmpfs(kilobytes: 16) else { return false }
        probe.unmount()
        return true
    }()
}
