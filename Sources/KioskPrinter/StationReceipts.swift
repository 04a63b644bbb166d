internal import Foundation
public import KioskCore

/// Lays out the station's receipts as ESC/POS bytes. Venue posters carry the venue (they hang at the venue); the
/// personal card carries only its code; the status slip and the warning slip carry nothing personal and no venue.
public enum StationReceipts {
    /// ESC/POS bytes for `job` on `paper`, its text in `codePage`.
    public static func bytes(for job: PrintJob, paper: PaperWidth, codePage: PrinterCodePage = .cp1252) throws
        -> [UInt8]
    {
        var encoder = ESCPOSEncoder(paper: paper, codePage: codePage)
        encoder.initialize()
        switch job {
        case .venuePoster(let poster):
            encoder.text("Check in here", alignment: .center, emphasized: true)
            encoder.text(poster.description, alignment: .center, emphasized: true)
            if !poster.address.isEmpty { encoder.text(poster.address, alignment: .center) }
            encoder.feed(lines: 1)
            try encoder.qrCode(try QREncoder.matrix(for: poster.url))
            encoder.feed(lines: 1)
            encoder.text("Scan with the Corona-Warn-App, or tap your kiosk card at the kiosk.", alignment: .center)
        case .personalCard(let secret):
            encoder.text("Personal check-in card", alignment: .center, emphasized: true)
            encoder.feed(lines: 1)
            try encoder.qrCode(try QREncoder.matrix(for: secret.printedText))
            encoder.text(secret.printedText, alignment: .center)
            encoder.feed(lines: 1)
            encoder.text("Show this code to a kiosk camera to check in or out, like your card.")
            encoder.text("Keep it like a key: whoever has it can see and delete your check-ins.")
        case .statusSlip(let slip):
            encoder.text("Kiosk status", alignment: .center, emphasized: true)
            encoder.text("Printed \(TimeText.dateTime(unixSeconds: Int64(slip.printedAt.timeIntervalSince1970))) UTC")
            encoder.text("Clock: \(slip.clockSynchronized ? "synchronized" : "NOT SET")")
            if let format = slip.venueFormat, let fingerprint = slip.venueFingerprint {
                encoder.text("Venue: \(format)")
                encoder.text("Venue code: \(fingerprint)")
            } else {
                encoder.text("Venue: not bound")
            }
            encoder.text("Checked in now: \(slip.openCheckIns)")
            encoder.text("Stored stays: \(slip.storedStays.map { "\($0)" } ?? "unknown")")
            encoder.text("Cards with stays: \(slip.storedCards.map { "\($0)" } ?? "unknown")")
            if let staffCards = slip.staffCards { encoder.text("Staff cards enrolled: \(staffCards)") }
            for (device, state) in slip.devices.sorted(by: { $0.key < $1.key }) {
                encoder.text("\(device): \(state)")
            }
        case .warningSlip(let slip):
            encoder.text("Possible exposure", alignment: .center, emphasized: true)
            encoder.feed(lines: 1)
            encoder.text(
                "On \(slip.exposureDays.count == 1 ? "this day" : "these days") you were at a place where someone")
            encoder.text("who later tested positive was at the same time:")
            for day in slip.exposureDays {
                encoder.text(TimeText.date(unixSeconds: day * 86_400), emphasized: true)
            }
            encoder.text("Risk: \(slip.isHighRisk ? "increased" : "low")")
            encoder.feed(lines: 1)
            encoder.text(
                "What to do: watch for symptoms for 14 days after that day, reduce contacts, and get tested if")
            encoder.text("you feel ill. Follow your health authority's advice.")
        }
        encoder.cut()
        return encoder.bytes
    }
}
