import KioskCore
import KioskExchange
import KioskOpenSSL

/// A batch as the authority and a test centre read it: from bytes, and from its `CKPB1:` text. A parsed batch writes
/// back to exactly the bytes it was read from, its count matches its length, and its text form reads back to it.
func checkBatch(_ bytes: [UInt8]) {
    do {
        let batch = try ReportBatch(bytes: bytes)
        require(batch.bytes == bytes, "a batch does not write back to its bytes")
        require(8 + batch.records.count * CKPR.recordLength == bytes.count, "a batch's count does not match its length")
        require((try? ReportBatch(text: batch.text)) == batch, "a batch's text does not read back")
    } catch {
        requireNoEcho(error.description, of: bytes)
    }
    let text = String(decoding: bytes, as: UTF8.self)
    do {
        let batch = try ReportBatch(text: text)
        require((try? ReportBatch(bytes: batch.bytes)) == batch, "a batch read from text does not read back")
    } catch {
        requireNoEcho(error.description, of: bytes)
    }
    if let decoded = Base45.decode(text) {
        require(Base45.encode(decoded) == text, "Base45 text that is not the encoding of what it decodes to")
    }
    require(Base45.decode(Base45.encode(bytes)) == bytes, "Base45 does not round-trip")
}

/// The CKPR/1 keys of a fixed venue (the `fixed-0x11` venue of `Tests/Vectors/native/ckpr-v1.json`).
nonisolated(unsafe) let fuzzRecordKeys: CKPRKeys = {
    guard let keys = try? CKPR.deriveKeys(locationId: [UInt8](repeating: 0x11, count: 32), crypto: fuzzCrypto) else {
        fatalError("CKPR/1 keys cannot be derived")
    }
    return keys
}()

/// Input: a 10-byte plaintext, a 16-byte IV, then a tampering position and mask. A plaintext that parses writes back
/// to the same bytes; sealed under a venue's keys it opens to the same report on its day (and only there); any
/// changed byte of the sealed record makes it fail to open. An input of a record's length is opened as one too.
func checkRecord(_ bytes: [UInt8]) {
    let plaintext = Array(bytes.prefix(CKPR.plaintextLength))
    if bytes.count == CKPR.recordLength, let opened = try? CKPR.openAfterTagMatch(bytes, day: 0, keys: fuzzRecordKeys) {
        require(opened.day == 0, "a record opened for another day")
    }
    guard let report = try? PresenceReport(plaintext: plaintext) else { return }
    require(report.plaintext == plaintext, "a plaintext does not write back to its bytes")
    guard (try? report.validate()) != nil else { return }
    var iv = Array(bytes.dropFirst(CKPR.plaintextLength).prefix(CKPR.ivLength))
    iv += [UInt8](repeating: 0, count: CKPR.ivLength - iv.count)
    guard let record = try? CKPR.seal(report, keys: fuzzRecordKeys, iv: iv) else {
        fatalError("a valid report does not seal")
    }
    require(record.count == CKPR.recordLength, "a sealed record of a wrong length")
    require((try? CKPR.open(record, day: report.day, keys: fuzzRecordKeys)) == report, "a record does not open")
    require((try? CKPR.open(record, day: report.day &+ 1, keys: fuzzRecordKeys)) == nil, "a record opens another day")
    let tail = bytes.dropFirst(CKPR.plaintextLength + CKPR.ivLength)
    if let position = tail.first, let mask = tail.dropFirst().first, mask != 0 {
        var tampered = record
        tampered[Int(position) % record.count] ^= mask
        require((try? CKPR.open(tampered, day: report.day, keys: fuzzRecordKeys)) == nil, "a tampered record opens")
    }
}

/// Input: the `X-Verification-Code` header line, the `Content-Type` line, then the body, as the authority's upload
/// endpoint receives them. A normalised code is 6–32 letters and digits and normalises to itself; an accepted upload
/// holds a batch that writes back to what was read and CWA reports of the shape the authority publishes.
func checkUpload(_ bytes: [UInt8]) {
    let lines = bytes.split(separator: 0x0A, maxSplits: 2, omittingEmptySubsequences: false)
    let code = String(decoding: lines[0], as: UTF8.self)
    let contentType = lines.count > 1 ? String(decoding: lines[1], as: UTF8.self) : nil
    let body = lines.count > 2 ? Array(lines[2]) : []
    if let normalized = ReportUploader.normalizedCode(code) {
        require((6...32).contains(normalized.count), "a normalised code of a wrong length")
        require(normalized.allSatisfy { $0.isASCII && ($0.isUppercase || $0.isNumber) }, "a code with other characters")
        require(ReportUploader.normalizedCode(normalized) == normalized, "normalising a code twice changes it")
    }
    guard let upload = ReceivedUpload(body: body, contentType: contentType) else { return }
    require((try? ReportBatch(bytes: upload.batch.bytes)) == upload.batch, "an uploaded batch does not read back")
    if let reports = upload.cwaReports {
        require(
            contentType?.hasPrefix(ReportUploader.submissionContentType) == true, "CWA reports without a submission")
        require(reports.count <= ReceivedUpload.maximumCWAReports, "too many CWA reports")
        require(reports.allSatisfy(\.hasReportShape), "a CWA report of the wrong shape")
        for report in reports {
            require(
                (try? CWAProtectedReport(serialized: report.serialized)) == report, "a CWA report does not read back")
        }
    }
}
