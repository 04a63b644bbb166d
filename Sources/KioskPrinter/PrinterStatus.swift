public import KioskCore

/// What a bidirectional ESC/POS printer says about itself in answer to `DLE EOT 2` (offline cause) and
/// `DLE EOT 4` (paper roll sensor). Printers on a write-only port (many `/dev/usb/lp*`) never answer.
public struct PrinterStatus: Sendable, Equatable {
    /// The cover is open.
    public var coverOpen: Bool
    /// The paper ran out (the printer stops printing).
    public var paperOut: Bool
    /// The roll is nearly used up: printing still works, staff should change it soon.
    public var paperLow: Bool
    /// The printer reports an error (cutter jam, overheating, …).
    public var failed: Bool

    /// The bytes of `DLE EOT 2` and `DLE EOT 4`, in that order: send them, then read one answer byte for each.
    public static let query: [UInt8] = [0x10, 0x04, 0x02, 0x10, 0x04, 0x04]

    /// Parses the two answer bytes; nil if they are not status bytes (bits 1 and 4 set, bits 0 and 7 clear).
    public init?(offlineCause: UInt8, paperSensor: UInt8) {
        func valid(_ byte: UInt8) -> Bool { byte & 0x93 == 0x12 }
        guard valid(offlineCause), valid(paperSensor) else { return nil }
        coverOpen = offlineCause & 0x04 != 0
        paperOut = offlineCause & 0x20 != 0 || paperSensor & 0x60 != 0
        paperLow = paperSensor & 0x0C != 0
        failed = offlineCause & 0x40 != 0
    }

    public init(coverOpen: Bool = false, paperOut: Bool = false, paperLow: Bool = false, failed: Bool = false) {
        self.coverOpen = coverOpen
        self.paperOut = paperOut
        self.paperLow = paperLow
        self.failed = failed
    }

    /// The answer bytes a printer in this state sends (for simulated printers in tests).
    public var answerBytes: [UInt8] {
        var offline: UInt8 = 0x12
        if coverOpen { offline |= 0x04 }
        if paperOut { offline |= 0x20 }
        if failed { offline |= 0x40 }
        var paper: UInt8 = 0x12
        if paperLow { paper |= 0x0C }
        if paperOut { paper |= 0x60 }
        return [offline, paper]
    }

    /// True when a job cannot be printed now.
    public var blocksPrinting: Bool { coverOpen || paperOut || failed }
}
