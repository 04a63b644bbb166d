/// Seals exactly what the holder agreed to: the preview's reports, one CKPR/1 record each under its venue's keys,
/// in a CKPB/1 batch with dummies, shuffled.
public enum ReportSealer {
    /// The batch for `preview`. Keys are derived per venue and wiped when each venue is done.
    public static func batch(for preview: Preview, crypto: some CryptoProvider) throws(ReportSealingError)
        -> ReportBatch
    {
        var sealed = [[UInt8]]()
        do {
            var keysByVenue = [[UInt8]: CKPRKeys]()
            for (locationId, report) in preview.sealingPlan {
                let keys: CKPRKeys
                if let known = keysByVenue[locationId] {
                    keys = known
                } else {
                    keys = try CKPR.deriveKeys(locationId: locationId, crypto: crypto)
                    keysByVenue[locationId] = keys
                }
                sealed.append(try CKPR.seal(report, keys: keys))
            }
        } catch {
            throw .report(error)
        }
        do {
            return try ReportBatch.assemble(sealed, crypto: crypto)
        } catch {
            throw .batch(error)
        }
    }

    /// Splits a batch for printing: each part a complete CKPB/1 batch of at most `recordsPerPart` records, holding
    /// real and dummy records alike (a part's count need not be a multiple of 8; the whole batch's is).
    public static func parts(of batch: ReportBatch, recordsPerPart: Int) -> [ReportBatch] {
        precondition(recordsPerPart > 0, "a part holds at least one record")
        var parts = [ReportBatch]()
        var index = 0
        while index < batch.records.count {
            let slice = Array(batch.records[index..<min(index + recordsPerPart, batch.records.count)])
            parts.append(try! ReportBatch(records: slice))  // records come from a valid batch
            index += recordsPerPart
        }
        return parts
    }
}

public enum ReportSealingError: Error, Equatable, Sendable {
    case report(ProtectedReportError)
    case batch(ReportBatchError)
}
