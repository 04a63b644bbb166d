import Foundation
import KioskCore
import KioskOpenSSL
import KioskSimulation
import KioskStore

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init(_ label: String) {
        var template = Array((NSTemporaryDirectory() + "kiosk-\(label)-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }

    /// Every regular file in the directory (database, -wal, -shm, journal…), with its contents.
    func files() throws -> [String: [UInt8]] {
        var out = [String: [UInt8]]()
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            out[name] = Array(try Data(contentsOf: URL(fileURLWithPath: path + "/" + name)))
        }
        return out
    }
}

extension Array where Element == UInt8 {
    func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        let first = needle[0]
        var index = 0
        let last = count - needle.count
        while index <= last {
            if self[index] == first, self[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }
}

/// Whether this process may mount file systems (root in a container that allows it): the full and read-only file
/// system tests need a small tmpfs.
enum Mounting {
    static let available: Bool = {
        guard getuid() == 0 else { return false }
        let probe = TemporaryDirectory("mount-probe")
        defer { probe.remove() }
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe.path]) == 0 else { return false }
        _ = run("/bin/umount", [probe.path])
        return true
    }()

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        let deadline = Date().addingTimeInterval(20)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            return -1
        }
        return process.terminationStatus
    }
}

let testVenue = StayVenue(
    locationId: [UInt8](repeating: 0x42, count: 32), description: "Town Hall",
    address: "Market Square 2", autoCheckout: AutoCheckoutRule(maximumStay: 7200))
