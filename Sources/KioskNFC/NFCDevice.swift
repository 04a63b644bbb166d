internal import CKioskNFC
internal import KioskPOSIX

#if canImport(Glibc)
    internal import Glibc
#endif

/// The one owner of a libnfc context and device, used from one thread at a time (the reader's polling thread).
///
/// Opening takes an exclusive `flock` on the port first (libnfc's own claim is a termios flag that the kernel does
/// not enforce), then opens exactly the configured connection string — no device scan — and puts the reader in
/// initiator mode with single-attempt selection (`NP_INFINITE_SELECT` off).
public final class NFCDevice {
    private let context: OpaquePointer
    private let device: OpaquePointer
    private let lockFD: Int32
    /// The handle other threads may use to abort a blocking call of this device.
    public let abortHandle: NFCAbortHandle

    /// Opens the reader at `connection` (`pn532_uart:/dev/ttyS0`, `pn532_i2c:/dev/i2c-1`, …).
    ///
    /// The corresponding C functions are `nfc_init`, `nfc_open` and `nfc_initiator_init`.
    public init(connection: String) throws(NFCError) {
        let parts = connection.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts[0].isEmpty, parts[1].hasPrefix("/") else {
            throw NFCError(code: .invalidConnectionString)
        }
        let path = String(parts[1])
        let fd = SystemCall.retrying { open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else { throw NFCError(code: .portUnavailable(errno)) }
        guard SystemCall.retrying({ flock(fd, LOCK_EX | LOCK_NB) }) == 0 else {
            let code = errno
            close(fd)
            throw NFCError(code: code == EWOULDBLOCK ? .portBusy : .portUnavailable(code))
        }
        var context: OpaquePointer?
        nfc_init(&context)
        guard let context else {
            close(fd)
            throw NFCError(code: .libraryUnavailable)
        }
        guard let device = connection.withCString({ nfc_open(context, $0) }) else {
            nfc_exit(context)
            close(fd)
            throw NFCError(code: .noSuchDevice)
        }
        self.context = context
        self.device = device
        self.lockFD = fd
        self.abortHandle = NFCAbortHandle(device: device)
        try check(nfc_initiator_init(device))
        try check(nfc_device_set_property_bool(device, NP_INFINITE_SELECT, false))
        try check(nfc_device_set_property_bool(device, NP_AUTO_ISO14443_4, true))
    }

    deinit {
        abortHandle.invalidate()
        nfc_close(device)
        nfc_exit(context)
        close(lockFD)  // releases the flock
    }

    @discardableResult
    private func check(_ result: Int32) throws(NFCError) -> Int32 {
        guard result >= 0 else { throw NFCError(libnfc: result) }
        return result
    }

    /// libnfc's description of the reader (chip and firmware, e.g. "PN532 v1.6").
    ///
    /// The corresponding C function is `nfc_device_get_information_about`.
    public func information() throws(NFCError) -> String {
        var text: UnsafeMutablePointer<CChar>?
        try check(nfc_device_get_information_about(device, &text))
        guard let text else { return "" }
        defer { nfc_free(text) }
        let length = strlen(text)
        return text.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// The reader's chip and firmware version, as libnfc reports them (e.g. "PN532 v1.6").
    public func firmwareVersion() throws(NFCError) -> String {
        let info = try information()
        guard let line = info.split(separator: "\n").first(where: { $0.contains("chip:") }) else { return info }
        return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingWhitespace() } ?? info
    }

    private static let typeA = nfc_modulation(nmt: NMT_ISO14443A, nbr: NBR_106)

    /// Waits for a type A card, up to `count` polls of `period` × 150 ms each; nil if none came. Can be
    /// interrupted by `abortHandle.abort()` (then throws `.aborted`).
    ///
    /// The corresponding C function is `nfc_initiator_poll_target`.
    public func poll(count: UInt8 = 1, period: UInt8 = 2) throws(NFCError) -> NFCTarget? {
        precondition(count > 0 && count < 0xFF && period > 0 && period <= 15, "finite polling only")
        var modulation = Self.typeA
        var target = nfc_target()
        let found = try check(nfc_initiator_poll_target(device, &modulation, 1, count, period, &target))
        return found > 0 ? Self.convert(target) : nil
    }

    /// One selection attempt (after a field reset, so a card that was halted or authenticated starts afresh).
    ///
    /// The corresponding C functions are `nfc_initiator_init` and `nfc_initiator_select_passive_target`.
    public func reselect() throws(NFCError) -> NFCTarget? {
        try check(nfc_initiator_init(device))
        try check(nfc_device_set_property_bool(device, NP_INFINITE_SELECT, false))
        var target = nfc_target()
        let found = try check(nfc_initiator_select_passive_target(device, Self.typeA, nil, 0, &target))
        return found > 0 ? Self.convert(target) : nil
    }

    /// Sends `command` to the selected card and returns its answer (CRC handled by the reader).
    ///
    /// The corresponding C function is `nfc_initiator_transceive_bytes`.
    public func transceive(_ command: [UInt8], timeout: Int32 = 250) throws(NFCError) -> [UInt8] {
        var answer = [UInt8](repeating: 0, count: 264)
        let count = try check(
            command.withUnsafeBufferPointer { tx in
                answer.withUnsafeMutableBufferPointer { rx in
                    nfc_initiator_transceive_bytes(device, tx.baseAddress, tx.count, rx.baseAddress, rx.count, timeout)
                }
            })
        return Array(answer.prefix(Int(count)))
    }

    /// Whether the selected card still answers.
    ///
    /// The corresponding C function is `nfc_initiator_target_is_present`.
    public func isTargetPresent() -> Bool { nfc_initiator_target_is_present(device, nil) == 0 }

    /// Switches the RF field off and back on (every card there resets).
    public func resetField() throws(NFCError) {
        try check(nfc_initiator_init(device))
        try check(nfc_device_set_property_bool(device, NP_INFINITE_SELECT, false))
    }

    private static func convert(_ target: nfc_target) -> NFCTarget {
        let info = target.nti.nai
        let atqa = withUnsafeBytes(of: info.abtAtqa) { Array($0) }
        let uid = withUnsafeBytes(of: info.abtUid) { Array($0.prefix(min(info.szUidLen, 10))) }
        let ats = withUnsafeBytes(of: info.abtAts) { Array($0.prefix(min(info.szAtsLen, 254))) }
        return NFCTarget(atqa: atqa, sak: info.btSak, uid: uid, ats: ats)
    }
}

/// Aborts a blocking libnfc call from another thread. Valid while its device is open; calls after the device
/// closed do nothing.
///
/// The corresponding C function is `nfc_abort_command`.
public final class NFCAbortHandle: @unchecked Sendable {
    private var device: OpaquePointer?
    private var lock = pthread_mutex_t()

    init(device: OpaquePointer) {
        self.device = device
        pthread_mutex_init(&lock, nil)
    }

    deinit { pthread_mutex_destroy(&lock) }

    /// Interrupts the device's current command (a poll returns `.aborted` within about a millisecond).
    public func abort() {
        pthread_mutex_lock(&lock)
        if let device { _ = nfc_abort_command(device) }
        pthread_mutex_unlock(&lock)
    }

    func invalidate() {
        pthread_mutex_lock(&lock)
        device = nil
        pthread_mutex_unlock(&lock)
    }
}

extension Substring {
    func trimmingWhitespace() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
