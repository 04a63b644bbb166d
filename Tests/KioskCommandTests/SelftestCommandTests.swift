import Foundation
import Testing

/// `kiosk selftest` run bare, as a field worker would: it checks the devices of the kiosk's configuration.
@Suite struct SelftestCommandTests {
    @Test func withoutOptionsItChecksTheConfiguredDevices() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("selftest-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("kiosk.json").path
        let missing = directory.path + "/none"
        try Data(
            """
            {"nfc": {"connection": "pn532_uart:\(missing)-nfc"}, "camera": {"device": "\(missing)-video"},
             "receiptPrinter": {"path": "\(missing)-lp0"}}
            """.utf8
        ).write(to: URL(fileURLWithPath: config))
        let result = try CommandRunner.run(["selftest", "--config", config], timeout: 60)
        #expect(result.status == 1, "\(result.stdout)\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        for device in ["camera", "nfc", "printer"] {
            #expect(lines.contains { $0.hasPrefix("FAIL \(device)") }, "\(device): \(result.stdout)")
        }
        #expect(!lines.contains { $0.hasPrefix("SKIP camera") || $0.hasPrefix("SKIP nfc") })

        // A configuration that cannot be read is a failure, not "nothing to check".
        try Data("{\"nfc\": }".utf8).write(to: URL(fileURLWithPath: config))
        let broken = try CommandRunner.run(["selftest", "--config", config], timeout: 60)
        #expect(broken.status == 1)
        #expect(broken.stdout.hasPrefix("FAIL config: "), "\(broken.stdout)")
    }
}
