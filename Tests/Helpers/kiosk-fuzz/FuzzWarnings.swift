import KioskCore
import KioskExchange
import KioskZip

/// A verifier that takes any non-empty signature: the fuzzer reaches what is parsed after the signature check (a
/// real key would refuse every mutated input before a byte of it is read).
struct AcceptingVerifier: SignatureVerifier {
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool { !signature.isEmpty }
}

/// A CKPW/1 package past its signature: a parsed package writes back to exactly its bytes and holds as many records
/// as its length says.
func checkWarningPackage(_ bytes: [UInt8]) {
    do {
        let package = try WarningPackage.verified(
            bytes: bytes, signature: [0x30], verifier: AcceptingVerifier(), maximumSize: 1 << 20)
        require(package.bytes == bytes, "a package does not write back to its bytes")
        require(18 + package.records.count * CKPR.recordLength == bytes.count, "a package's count does not match")
        require(package.records.allSatisfy { $0.count == CKPR.recordLength }, "a record of a wrong length")
    } catch {
        requireNoEcho(error.description, of: bytes)
    }
    require(
        (try? WarningPackage.verified(bytes: bytes, signature: [], verifier: AcceptingVerifier())) == nil,
        "an unsigned package was read")
}

/// The CKPW/1 `index.json` (after its signature: the packages it lists and the risk parameters it publishes) and the
/// CWA hour index, from the same bytes. Applied parameters hold only the values the criteria allow; the hours an
/// index lists come out ascending and without repeats.
func checkIndexes(_ bytes: [UInt8]) {
    if let index = PublishedIndex(body: bytes) {
        _ = index.packages.sorted { $0.sequence < $1.sequence }
    }
    if case .published(let published) = PublishedIndex.parameters(in: bytes),
        let parameters = try? PresenceTracingParameters.cwaProduction.applying(published)
    {
        for level in UInt8(1)...8 {
            let value = parameters.transmissionRiskValue(for: level)
            require(value.isFinite && (0...10).contains(value), "an applied risk value out of range")
        }
        require((1...14).contains(parameters.maxCheckInAgeInDays), "an applied age out of range")
    }
    if let hours = CWAWarningsClient.hours(inIndex: bytes) {
        require(zip(hours, hours.dropFirst()).allSatisfy { $0 < $1 }, "hours not ascending or repeated")
    }
}

/// KioskZip's reader: every entry it reads has the size the directory declares and no more than the limit, and
/// what it read zips and reads back the same.
func checkZip(_ bytes: [UInt8]) {
    let limit = 1 << 16
    guard let archive = try? ZipArchive(bytes: bytes, maximumSize: 1 << 20) else { return }
    require(archive.entries.count <= ZipArchive.maximumEntries, "more entries than allowed")
    var read = [(name: String, bytes: [UInt8])]()
    for entry in archive.entries.prefix(8) {
        guard let content = try? archive.contents(of: entry.name, maximumSize: limit) else { continue }
        require(content.count <= limit, "an entry larger than the limit")
        if read.contains(where: { $0.name == entry.name }) { continue }
        read.append((entry.name, content))
    }
    guard !read.isEmpty else { return }
    for compress in [true, false] {
        guard let again = try? ZipArchive.archive(read, compress: compress),
            let reopened = try? ZipArchive(bytes: again, maximumSize: Int.max)
        else { fatalError("entries read from a zip do not zip again") }
        for file in read {
            require(
                (try? reopened.contents(of: file.name, maximumSize: limit)) == file.bytes, "a zip does not read back")
        }
    }
}

/// A CWA hourly package: the zip opened past its signature, and the same bytes taken as `export.bin` and as
/// `export.sig`. A parsed package writes an `export.bin` that parses to the same package; its reports open only
/// under their venue (never under an unrelated one).
func checkCWAPackage(_ bytes: [UInt8]) {
    var packages = [CWATraceWarningPackage]()
    if let package = try? CWAHourlyPackage.open(
        bytes, verifier: AcceptingVerifier(), maximumArchiveSize: 1 << 20, maximumExportSize: 1 << 20)
    {
        packages.append(package)
    }
    do {
        packages.append(try CWATraceWarningPackage(unverifiedExport: bytes))
    } catch {
        requireNoEcho(error.description, of: bytes)
    }
    if let signatures = try? CWATraceWarningPackage.signatures(inList: bytes) {
        require(signatures.allSatisfy { !$0.isEmpty }, "an empty signature in a list")
    }
    for package in packages {
        require(
            (try? CWATraceWarningPackage(unverifiedExport: package.export)) == package, "export.bin does not read back")
        for report in package.checkInProtectedReports.prefix(4) {
            _ = try? report.open(locationId: [UInt8](repeating: 0x11, count: 32), crypto: fuzzCrypto)
        }
    }
}

/// A CKCN/1 file of CrowdNotifier problematic events past its signature: a parsed file keeps only events of the sizes
/// matching needs, all of its own form, and writes back to bytes that read as the same events.
func checkCrowdNotifierPackage(_ bytes: [UInt8]) {
    do {
        let package = try CrowdNotifierEventPackage.verified(
            bytes: bytes, signature: [0x30], verifier: AcceptingVerifier())
        require(
            package.events.allSatisfy {
                $0.form == package.form && $0.identity.count == 32 && $0.nonce.count == SecretBoxSize.nonce
                    && $0.sealed.count >= SecretBoxSize.tag
            }, "an event of a wrong size or form was kept")
        let again = try CrowdNotifierEventPackage(unverifiedBytes: try package.bytes())
        require(again == package, "a file does not write back to the same events")
        _ = CrowdNotifierEventIndex(package.events)
    } catch {
        requireNoEcho("\(error)", of: bytes)
    }
    require(
        (try? CrowdNotifierEventPackage.verified(bytes: bytes, signature: [], verifier: AcceptingVerifier())) == nil,
        "an unsigned file was read")
}
