internal import Foundation
public import KioskCore

/// Lays out the station's receipts as ESC/POS bytes. Venue posters carry the venue (they hang at the venue); the
/// personal card carries only its code; the status slip and the warning slip carry nothing personal and no venue.
public enum StationReceipts {
    /// The receipt for `job` on `paper` in `language` (the language of the person at the kiosk when it is printed),
    /// its text in `codePage`. The warning slip's days are calendar days, written as `language` writes them
    /// (`VisitorTime.calendarDay`); the status slip is staff's and keeps UTC.
    public static func bytes(
        for job: PrintJob, paper: PaperWidth, codePage: PrinterCodePage = .cp1252, language: Language = .fallback
    ) throws -> [UInt8] {
        let texts = Catalog.of(language)
        var encoder = ESCPOSEncoder(paper: paper, codePage: codePage)
        encoder.initialize()
        switch job {
        case .venuePoster(let poster):
            encoder.text(texts[.receiptPosterTitle], alignment: .center, emphasized: true)
            encoder.text(poster.description, alignment: .center, emphasized: true)
            if !poster.address.isEmpty { encoder.text(poster.address, alignment: .center) }
            encoder.feed(lines: 1)
            try encoder.qrCode(try QREncoder.matrix(for: poster.url))
            encoder.feed(lines: 1)
            encoder.text(texts[.receiptPosterInstructions], alignment: .center)
        case .personalCard(let secret):
            encoder.text(texts[.receiptCardTitle], alignment: .center, emphasized: true)
            encoder.feed(lines: 1)
            try encoder.qrCode(try QREncoder.matrix(for: secret.printedText))
            encoder.text(secret.printedText, alignment: .center)
            encoder.feed(lines: 1)
            encoder.text(texts[.receiptCardUse])
            encoder.text(texts[.receiptCardKey])
        case .statusSlip(let slip):
            let count: (Int?) -> String = { $0.map { "\($0)" } ?? texts[.receiptStatusUnknown] }
            encoder.text(texts[.receiptStatusTitle], alignment: .center, emphasized: true)
            encoder.text(
                texts.text(
                    .receiptStatusPrinted,
                    ["time": TimeText.dateTime(unixSeconds: Int64(slip.printedAt.timeIntervalSince1970))]))
            encoder.text(texts[slip.clockSynchronized ? .receiptStatusClockSynchronized : .receiptStatusClockNotSet])
            if let format = slip.venueFormat, let fingerprint = slip.venueFingerprint {
                encoder.text(texts.text(.receiptStatusVenue, ["format": format]))
                encoder.text(texts.text(.receiptStatusVenueCode, ["fingerprint": fingerprint]))
            } else {
                encoder.text(texts[.receiptStatusVenueNotBound])
            }
            encoder.text(texts.text(.receiptStatusCheckedIn, ["count": "\(slip.openCheckIns)"]))
            encoder.text(texts.text(.receiptStatusStoredStays, ["count": count(slip.storedStays)]))
            encoder.text(texts.text(.receiptStatusStoredCards, ["count": count(slip.storedCards)]))
            if let staffCards = slip.staffCards {
                encoder.text(texts.text(.receiptStatusStaffCards, ["count": "\(staffCards)"]))
            }
            for (device, state) in slip.devices.sorted(by: { $0.key < $1.key }) {
                encoder.text("\(device): \(state)")
            }
        case .warningSlip(let slip):
            encoder.text(texts[.receiptWarningTitle], alignment: .center, emphasized: true)
            encoder.feed(lines: 1)
            encoder.text(texts[slip.exposureDays.count == 1 ? .receiptWarningOneDay : .receiptWarningDays])
            for day in slip.exposureDays {
                encoder.text(VisitorTime(language).calendarDay(day), emphasized: true)
            }
            encoder.text(texts[slip.isHighRisk ? .receiptWarningRiskHigh : .receiptWarningRiskLow])
            encoder.feed(lines: 1)
            encoder.text(texts[.receiptWarningAdvice])
        }
        encoder.cut()
        return encoder.bytes
    }
}
