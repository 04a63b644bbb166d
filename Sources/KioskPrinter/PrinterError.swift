public import SystemPackage

/// Why a receipt did not print. Nothing is kept (`AttendedPrinter`): the caller tells the person and offers to try
/// again now. The description says what to check; it never contains the receipt's content.
public enum PrinterError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The device file does not exist (`ENOENT`): printer not plugged in or not switched on.
    case notFound(path: String)
    /// The device went away (`ENODEV`, `ENXIO`): unplugged, or switched off.
    case unplugged(path: String)
    /// The kiosk's user may not open the device (`EACCES`, `EPERM`).
    case permissionDenied(path: String)
    /// Another program has the printer open (`EBUSY`).
    case busy(path: String)
    /// The printer reported an I/O error (`EIO`); USB printers do this when out of paper, offline or jammed.
    case ioError(path: String)
    /// The printer stopped taking data: `written` of `total` bytes went out before the time limit.
    case stalled(path: String, written: Int, total: Int)
    /// The printer answered the status query: paper out.
    case outOfPaper(path: String)
    /// The printer answered the status query: cover open.
    case coverOpen(path: String)
    /// The printer answered the status query: it is in an error state (cutter jam, overheating).
    case printerFault(path: String)
    /// The printer is configured as bidirectional but did not answer the status query (off, or wrong port or speed).
    case notResponding(path: String)
    /// The path names a plain file or a folder, not a printer: receipts are never written to files, where the reports
    /// and card codes they carry would outlive the 14 days the kiosk may keep them.
    case notAPrinter(path: String)
    /// Any other failure of the named system call.
    case failed(path: String, call: String, errno: Errno)
    /// The kiosk has no receipt printer configured.
    case notConfigured

    public var description: String {
        switch self {
        case .notFound(let path):
            "no printer at \(path): plug it in and switch it on"
        case .unplugged(let path):
            "the printer at \(path) went away: check the cable and power"
        case .permissionDenied(let path):
            "no permission to open \(path): the kiosk's user needs the 'lp' group or a udev rule for the printer"
        case .busy(let path):
            "the printer at \(path) is in use by another program"
        case .ioError(let path):
            "the printer at \(path) reported an error: check paper, cover and cable"
        case .stalled(let path, let written, let total):
            "the printer at \(path) stopped taking data after \(written) of \(total) bytes: check paper and cover"
        case .outOfPaper(let path): "the printer at \(path) is out of paper: put in a new roll"
        case .coverOpen(let path): "the printer at \(path) has its cover open: close it"
        case .printerFault(let path):
            "the printer at \(path) reports a fault (cutter jam or overheating): switch it off and on"
        case .notResponding(let path):
            "the printer at \(path) does not answer: is it switched on, and are the port and speed right?"
        case .notAPrinter(let path):
            "\(path) is a file, not a printer: receipts are printed on a printer only, never kept in a file"
        case .failed(let path, let call, let errno): "printing to \(path) failed in \(call): \(errno.description)"
        case .notConfigured: "this kiosk has no receipt printer configured (receiptPrinter.path in the configuration)"
        }
    }

    static func from(_ errno: Errno, path: String, call: String) -> PrinterError {
        switch errno {
        case .noSuchFileOrDirectory: .notFound(path: path)
        case .operationNotSupportedByDevice, .noSuchAddressOrDevice: .unplugged(path: path)
        case .permissionDenied, .notPermitted: .permissionDenied(path: path)
        case .resourceBusy: .busy(path: path)
        case .ioError: .ioError(path: path)
        default: .failed(path: path, call: call, errno: errno)
        }
    }
}
