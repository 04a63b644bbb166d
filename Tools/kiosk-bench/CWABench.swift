import ArgumentParser
import Foundation
import KioskCore
import KioskExchange
import KioskOpenSSL

/// Reading a CWA hourly package's `export.bin` (signature check, protobuf parse, keeping the kiosk's venues) and
/// matching what was kept against local stays.
struct CWABench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cwa",
        abstract: "Time verifying, parsing and filtering a CWA hourly package, and matching the kept records."
    )

    @Option(help: "Health-authority warnings in the package.") var warnings = 20_000
    @Option(help: "Protected reports in the package.") var reports = 100_000
    @Option(help: "Local stays to match.") var stays = 10_000
    @Option(help: "Venues the kiosk's stays are spread over.") var venues = 50
    @Option(help: "Records (of each kind) that concern those venues.") var relevant = 500

    func validate() throws {
        guard warnings >= relevant, reports >= relevant, relevant >= 1, stays >= 1, venues >= 1 else {
            throw ValidationError("warnings and reports ≥ relevant ≥ 1; stays and venues ≥ 1")
        }
    }

    func run() throws {
        let crypto = OpenSSLCrypto()
        let today: Int64 = 20_000
        let venueIds = try (0..<venues).map { _ in try crypto.randomBytes(count: 32) }
        var localStays = [MatchableStay]()
        for index in 0..<stays {
            let day = today - Int64(index % 10)
            let start = day * 86_400 + Int64((index / 10) % 20) * 1800 + 8 * 3600
            localStays.append(
                MatchableStay(id: String(index), locationId: venueIds[index % venues], start: start, end: start + 3600))
        }
        print("preparing \(warnings) warnings and \(reports) protected reports …")
        var warningList = [CWATraceWarning]()
        var reportList = [CWAProtectedReport]()
        for index in 0..<warnings {
            let relevantOne = index < relevant
            let stay = localStays[(index * 7919) % localStays.count]
            warningList.append(
                CWATraceWarning(
                    locationIdHash: relevantOne
                        ? try crypto.sha256(stay.locationId) : try crypto.randomBytes(count: 32),
                    startIntervalNumber: UInt32(stay.start / 600), period: 3, transmissionRiskLevel: 5))
        }
        for index in 0..<reports {
            if index < relevant {
                let stay = localStays[(index * 104_729) % localStays.count]
                let record = CWAProtectedReport.Record(
                    startIntervalNumber: UInt32(stay.start / 600), period: 3, transmissionRiskLevel: 7)
                reportList.append(
                    try CWAProtectedReport.seal(
                        record, locationId: stay.locationId, iv: try crypto.randomBytes(count: 16), crypto: crypto))
            } else {
                reportList.append(
                    CWAProtectedReport(
                        locationIdHash: try crypto.randomBytes(count: 32), iv: try crypto.randomBytes(count: 16),
                        encryptedCheckInRecord: try crypto.randomBytes(count: 16),
                        mac: try crypto.randomBytes(count: 32)))
            }
        }
        let package = CWATraceWarningPackage(
            hour: UInt32(today * 24), region: "DE", timeIntervalWarnings: warningList,
            checkInProtectedReports: reportList)
        let export = package.export
        let signer = try ECDSAPrivateKey()
        let list = CWATraceWarningPackage.signatureList(signature: try signer.signature(for: export))
        let verifier = try signer.publicKey()
        let hashes = Set(try venueIds.map { try crypto.sha256($0) })

        let clock = ContinuousClock()
        var opened: CWATraceWarningPackage?
        let openTime = try clock.measure {
            opened = try CWATraceWarningPackage.verified(export: export, signatureList: list, verifier: verifier)
        }
        var set = CWAWarningSet()
        let keepTime = clock.measure {
            let kept = opened!.keeping(locationIdHashes: hashes)
            set.add(warnings: kept.timeIntervalWarnings, reports: kept.checkInProtectedReports)
        }
        var result: ExposureResult?
        let matchTime = clock.measure {
            result = WarningMatcher.match(stays: localStays, cwa: set, now: today * 86_400 + 43_200, crypto: crypto)
        }
        // As the kiosk reads a package: the zip in a file, export.bin inflated in chunks twice (signature, then the
        // streaming reader keeping the venues' records).
        let zip = try CWAHourlyPackage.make(package, signer: signer)
        let path = NSTemporaryDirectory() + "/kiosk-bench-cwa-\(UUID().uuidString).zip"
        try Data(zip).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var streamed: CWATraceWarningPackage?
        let streamedTime = try clock.measure {
            streamed = try CWAHourlyPackage.open(
                path: path, verifier: verifier, keepingLocationIdHashes: hashes, maximumArchiveSize: 1 << 30,
                maximumExportSize: 1 << 30)
        }
        let streamedKept =
            (streamed?.timeIntervalWarnings.count ?? 0) + (streamed?.checkInProtectedReports.count ?? 0)
        print("export.bin: \(export.count) bytes, \(warnings) warnings + \(reports) reports")
        print("zip file (\(zip.count) bytes), streamed: verify + keep \(streamedKept) records: \(streamedTime)")
        print("verify + parse: \(openTime)")
        print("keep \(set.count) records of the kiosk's \(venues) venues: \(keepTime)")
        print("match \(stays) stays: \(matchTime), \(result?.matches.count ?? 0) matches")
    }
}
