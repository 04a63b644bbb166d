import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL
import KioskSimulation
import Testing

/// From consent to a file on a stick, and back: another kiosk that only knows the venue's `locationId` reads the
/// exact intervals and risk levels.
@Suite struct ReportExportTests {
    let crypto = OpenSSLCrypto()
    let now: Int64 = 1_615_000_000  // 2021-03-06 03:06:40 UTC
    let bakery = [UInt8](repeating: 0xB0, count: 32)
    let library = [UInt8](repeating: 0x1B, count: 32)

    func consentedPreview(output: ReportOutput) throws -> Preview {
        try ConsentWalkthrough.consentedPreview(
            stays: [
                ReportableStay(
                    id: "1", venueName: "Bakery", locationId: bakery, start: now - 86_400, end: now - 86_400 + 3600),
                ReportableStay(
                    id: "2", venueName: "Library", locationId: library, start: (now / 86_400 - 2) * 86_400 - 3600,
                    end: (now / 86_400 - 2) * 86_400 + 3600),
            ], now: now, symptoms: .symptomOnset(day: now / 86_400 - 2), output: output)
    }

    @Test func exportedBatchOpensWithOnlyTheLocationId() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let preview = try consentedPreview(output: .export)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        let written = try ReportExporter(directory: directory.path).export(
            batch: batch, preview: preview, stamp: "20210306-030640")

        // Another kiosk reads the file from the stick.
        let fileBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + written.batchFile)))
        let read = try ReportBatch(bytes: fileBytes)
        let textForm = try String(contentsOfFile: directory.path + "/" + written.textFile, encoding: .utf8)
        #expect(try ReportBatch(text: textForm) == read)
        #expect(read.records.count % 8 == 0 && read.records.count > preview.reportCount)

        var opened: [[UInt8]: [PresenceReport]] = [:]
        for venue in [bakery, library] {
            let keys = try CKPR.deriveKeys(locationId: venue, crypto: crypto)
            for record in read.records {
                for day in (now / 86_400 - 3)...(now / 86_400) {
                    if let report = try? CKPR.open(record, day: UInt32(day), keys: keys) {
                        opened[venue, default: []].append(report)
                    }
                }
            }
        }
        let expected = Dictionary(grouping: preview.sealingPlan, by: { $0.locationId }).mapValues { $0.map(\.report) }
        #expect(opened.mapValues(Set.init) == expected.mapValues(Set.init))
        #expect(opened.values.reduce(0) { $0 + $1.count } == preview.reportCount)
        // Library stay crosses midnight UTC: two reports; bakery: one.
        #expect(opened[library]?.count == 2)

        let summary = try String(contentsOfFile: directory.path + "/" + written.summaryFile, encoding: .utf8)
        #expect(!summary.contains("Bakery") && !summary.contains("Library"))
        #expect(summary.contains("risk level"))
        // No temporary files are left behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).allSatisfy { !$0.hasPrefix(".") })
    }

    @Test func missingStickIsAClearError() throws {
        let preview = try consentedPreview(output: .export)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        #expect(throws: ExportError.noMedium) {
            try ReportExporter(directory: "/nonexistent/usb").export(batch: batch, preview: preview, stamp: "x")
        }
        #expect(ExportError.noMedium.description.contains("USB stick"))
    }

    @Test(.enabled(if: TemporaryDirectory.canMount, "needs CAP_SYS_ADMIN to mount a small tmpfs as a full stick"))
    func fullStickLeavesNoHalfFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(directory.mountTmpfs(kilobytes: 8))
        defer { directory.unmount() }
        // Fill the stick almost completely.
        try Data(count: 6 * 1024).write(to: URL(fileURLWithPath: directory.path + "/filler"))
        let big = [UInt8](repeating: 0x42, count: 64 * 1024)
        #expect(throws: ExportError.deviceFull) { try AtomicFile.write(big, named: "batch.ckpb", in: directory.path) }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names == ["filler"])
    }

    @Test(.enabled(if: TemporaryDirectory.canMount, "needs CAP_SYS_ADMIN to mount a read-only tmpfs as a locked stick"))
    func writeProtectedStickIsAClearError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(directory.mountTmpfs(kilobytes: 64, readOnly: true))
        defer { directory.unmount() }
        #expect(throws: ExportError.readOnly) {
            try AtomicFile.write([1, 2, 3], named: "batch.ckpb", in: directory.path)
        }
    }

    @Test func rewritingReplacesTheWholeFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try AtomicFile.write([UInt8](repeating: 1, count: 1000), named: "f", in: directory.path)
        try AtomicFile.write([2, 2], named: "f", in: directory.path)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.path + "/f"))) == [2, 2])
        #expect(throws: ExportError.invalidName) { try AtomicFile.write([1], named: "../escape", in: directory.path) }
    }

    @Test func printedPartsAreCompleteBatches() throws {
        let preview = try consentedPreview(output: .print)
        let batch = try ReportSealer.batch(for: preview, crypto: crypto)
        let parts = ReportSealer.parts(of: batch, recordsPerPart: 3)
        #expect(parts.flatMap(\.records) == batch.records)
        for part in parts { #expect(try ReportBatch(text: part.text) == part) }
    }
}
