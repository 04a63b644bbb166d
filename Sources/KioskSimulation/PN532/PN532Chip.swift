/// Faults the emulator can inject, each counted from the moment it is armed.
public enum PN532Fault: Equatable, Sendable {
    /// The card leaves the field during the write that follows `writes` further writes: that page is left half
    /// written and the command gets no answer from the card (tearing).
    case tearAfterWrites(Int)
    /// The card leaves the field when the tag command after `commands` further tag commands arrives; that command
    /// gets no answer from the card.
    case removeCardAfterCommands(Int)
    /// The next `count` reply frames carry a wrong data checksum.
    case corruptReplies(Int)
    /// The next `count` commands get neither an ACK nor a reply (the chip seems hung).
    case ignoreCommands(Int)
    /// A DESFire card leaves the field when the frame after `frames` further frames to it arrives: before it acts
    /// on it, or in the middle of the EEPROM write it makes (a standard data file is then half written, a commit
    /// not made at all). That frame gets no answer; what was not committed is gone.
    case tearAfterFrames(Int)
}

/// The PN532 as a value: registers, RF field, the card on its antenna, and the command it is still working on.
/// `PN532Emulator` wraps it for use from several threads.
public struct PN532Chip: Sendable {
    public typealias Instant = ContinuousClock.Instant

    private var parser = PN532FrameParser()
    public private(set) var card: EmulatedCard?
    /// The last card taken away (by `removeCard()` or by a fault), as it was when it left.
    public private(set) var lastRemovedCard: EmulatedCard?
    private var targetSelected = false
    private var registers: [UInt16: UInt8] = [0x6302: 0x80, 0x6303: 0x80]
    public private(set) var fieldOn = false
    private var passiveActivationRetries: UInt8 = 0xFF
    private var lastReply: [UInt8] = []
    private var pending: (command: [UInt8], deadline: Instant?)?
    private var writesBeforeTear: Int?
    private var commandsBeforeRemoval: Int?
    private var framesBeforeTear: Int?
    /// A card's answer held until the exchange's time (`DESFireTiming`) has passed.
    private var delayedReply: (bytes: [UInt8], due: Instant)?
    private var repliesToCorrupt = 0
    private var commandsToIgnore = 0
    /// Commands aborted by a host ACK.
    public private(set) var abortedCommands = 0
    /// Command codes received, in order (for tests).
    public private(set) var commandLog: [UInt8] = []
    /// Frames whose checksums did not add up.
    public private(set) var malformedFrames = 0

    /// How long one passive activation attempt takes when the retry count is finite.
    public var activationAttempt: Duration = .milliseconds(5)

    public init() {}

    // MARK: Control

    public mutating func place(_ card: EmulatedCard) {
        self.card = card
        targetSelected = false
    }

    @discardableResult
    public mutating func removeCard() -> EmulatedCard? {
        var removed = card
        if case .tag(var tag) = removed {
            tag.powerOff()
            removed = .tag(tag)
        }
        if case .desfire(var desfire) = removed {
            desfire.powerOff()
            removed = .desfire(desfire)
        }
        if removed != nil { lastRemovedCard = removed }
        card = nil
        // The chip still believes its target is selected: the next exchange times out (status 01), as on hardware.
        return removed
    }

    public mutating func inject(_ fault: PN532Fault) {
        switch fault {
        case .tearAfterWrites(let count): writesBeforeTear = count
        case .removeCardAfterCommands(let count): commandsBeforeRemoval = count
        case .corruptReplies(let count): repliesToCorrupt = count
        case .ignoreCommands(let count): commandsToIgnore = count
        case .tearAfterFrames(let count): framesBeforeTear = count
        }
    }

    /// When `tick` must run next to answer a command that is waiting for a card, if any.
    public var deadline: Instant? {
        switch (pending?.deadline, delayedReply?.due) {
        case (let waiting?, let due?): min(waiting, due)
        case (let waiting, let due): waiting ?? due
        }
    }
    /// Whether a command (InListPassiveTarget, InAutoPoll) is waiting for a card.
    public var isWaitingForCard: Bool { pending != nil }

    // MARK: Host side

    /// Takes bytes written by the host and returns the bytes the chip sends back.
    public mutating func receive(_ bytes: some Sequence<UInt8>, now: Instant) -> [UInt8] {
        var out: [UInt8] = []
        for frame in parser.feed(bytes) {
            switch frame {
            case .ack:
                delayedReply = nil
                if pending != nil {
                    pending = nil
                    abortedCommands += 1
                }
            case .nack:
                out += lastReply
            case .malformed:
                malformedFrames += 1
                out += PN532Frame.nack
            case .information(let data):
                out += command(data, now: now)
            }
        }
        return out
    }

    /// Answers a waiting command if a card arrived or its time ran out.
    public mutating func tick(now: Instant) -> [UInt8] {
        if let delayed = delayedReply, now >= delayed.due {
            delayedReply = nil
            return delayed.bytes
        }
        guard let (command, deadline) = pending else { return [] }
        if let answer = discover(command) {
            pending = nil
            return reply(command[1], answer)
        }
        if let deadline, now >= deadline {
            pending = nil
            return reply(command[1], [0x00])
        }
        return []
    }

    private mutating func reply(_ code: UInt8, _ payload: [UInt8]) -> [UInt8] {
        let frame = PN532Frame.encode([0xD5, code &+ 1] + payload)
        lastReply = frame
        if repliesToCorrupt > 0 {
            repliesToCorrupt -= 1
            var bad = frame
            bad[bad.count - 2] ^= 0x5A
            return bad
        }
        return frame
    }

    private mutating func command(_ data: [UInt8], now: Instant) -> [UInt8] {
        guard data.count >= 2, data[0] == 0xD4 else { return PN532Frame.ack + PN532Frame.syntaxError }
        if commandsToIgnore > 0 {
            commandsToIgnore -= 1
            return []
        }
        pending = nil
        let code = data[1]
        let params = Array(data.dropFirst(2))
        commandLog.append(code)
        let ack = PN532Frame.ack
        switch code {
        case 0x00:  // Diagnose: test 0 echoes its parameters
            return ack + reply(code, params.first == 0x00 ? params : [0x00])
        case 0x02:  // GetFirmwareVersion: PN532 v1.6, ISO 14443A/B and ISO 18092
            return ack + reply(code, [0x32, 0x01, 0x06, 0x07])
        case 0x04:  // GetGeneralStatus
            var status: [UInt8] = [0x00, fieldOn ? 1 : 0, targetSelected ? 1 : 0]
            if targetSelected { status += [0x01, 0x00, 0x00, 0x00] }
            return ack + reply(code, status + [0x01])
        case 0x06:  // ReadRegister
            var values: [UInt8] = []
            var index = 0
            while index + 1 < params.count {
                values.append(registers[UInt16(params[index]) << 8 | UInt16(params[index + 1])] ?? 0)
                index += 2
            }
            return ack + reply(code, values)
        case 0x08:  // WriteRegister
            var index = 0
            while index + 2 < params.count {
                registers[UInt16(params[index]) << 8 | UInt16(params[index + 1])] = params[index + 2]
                index += 3
            }
            return ack + reply(code, [])
        case 0x10, 0x12, 0x14:  // SetSerialBaudRate, SetParameters, SAMConfiguration
            return ack + reply(code, [])
        case 0x16:  // PowerDown: the field goes off
            switchField(on: false)
            return ack + reply(code, [0x00])
        case 0x32:  // RFConfiguration
            if params.first == 0x01, params.count >= 2 { switchField(on: params[1] & 0x01 != 0) }
            if params.first == 0x05, params.count >= 4 { passiveActivationRetries = params[3] }
            return ack + reply(code, [])
        case 0x4A, 0x60:  // InListPassiveTarget, InAutoPoll
            fieldOn = true
            if let answer = discover(data) { return ack + reply(code, answer) }
            guard let deadline = searchDeadline(data, now: now) else {
                pending = (data, nil)
                return ack
            }
            if deadline <= now { return ack + reply(code, [0x00]) }
            pending = (data, deadline)
            return ack
        case 0x40:  // InDataExchange
            guard params.first == 0x01 else { return ack + reply(code, [0x27]) }
            if case .desfire = card, targetSelected {
                return ack + exchangeDESFire(code, Array(params.dropFirst()), raw: false, now: now)
            }
            return ack + reply(code, exchange(Array(params.dropFirst()), raw: false))
        case 0x42:  // InCommunicateThru
            if case .desfire = card, targetSelected { return ack + exchangeDESFire(code, params, raw: true, now: now) }
            return ack + reply(code, exchange(params, raw: true))
        case 0x44, 0x52:  // InDeselect, InRelease: the tag is sent to HALT
            if targetSelected, case .tag(var tag) = card {
                _ = tag.handle([0x50, 0x00])
                card = .tag(tag)
            }
            if targetSelected, case .desfire(var desfire) = card {
                desfire.deselect()
                card = .desfire(desfire)
            }
            targetSelected = false
            return ack + reply(code, [0x00])
        case 0x54:  // InSelect
            guard card != nil, params.first == 0x01 else { return ack + reply(code, [0x27]) }
            if case .tag(var tag) = card {
                tag.select()
                card = .tag(tag)
            }
            if case .desfire(var desfire) = card {
                desfire.activate()
                card = .desfire(desfire)
            }
            targetSelected = true
            return ack + reply(code, [0x00])
        default:
            return ack + PN532Frame.syntaxError
        }
    }

    private mutating func switchField(on: Bool) {
        fieldOn = on
        if !on {
            if case .tag(var tag) = card {
                tag.powerOff()
                card = .tag(tag)
            }
            if case .desfire(var desfire) = card {
                desfire.powerOff()
                card = .desfire(desfire)
            }
            targetSelected = false
        }
    }

    /// The answer of InListPassiveTarget / InAutoPoll if the card on the antenna matches the request.
    private mutating func discover(_ command: [UInt8]) -> [UInt8]? {
        if case .desfire(var desfire) = self.card {
            // The field powers the card up: it loads its memory and, with random UID on, draws its UID.
            desfire.powerOn()
            self.card = .desfire(desfire)
        }
        guard let card else { return nil }
        if case .tag(let tag) = card, tag.halted { return nil }
        // A deselected DESFire card is in HALT and answers the wake-up the PN532 sends when it lists again (libnfc
        // lists, deselects, then selects the card by its UID: libfreefare's connect).
        let params = Array(command.dropFirst(2))
        var type: UInt8?
        if command[1] == 0x4A {
            guard params.count >= 2, params[1] == 0x00 else { return nil }
            let initiatorData = Array(params.dropFirst(2))
            if !initiatorData.isEmpty {
                let uid =
                    initiatorData.count == 8 && initiatorData[0] == 0x88
                    ? Array(initiatorData.dropFirst()) : initiatorData
                guard uid == card.uid else { return nil }
            }
        } else {
            guard params.count >= 3 else { return nil }
            type = params.dropFirst(2).first { $0 == 0x00 || $0 == 0x10 || ($0 == 0x20 && card.ats != nil) }
            guard type != nil else { return nil }
        }
        if case .tag(var tag) = card {
            tag.select()
            self.card = .tag(tag)
        }
        if case .desfire(var desfire) = card {
            desfire.activate()
            self.card = .desfire(desfire)
        }
        targetSelected = true
        var targetData: [UInt8] = [0x01] + card.atqa + [card.sak, UInt8(card.uid.count)] + card.uid
        if let ats = card.ats { targetData += [UInt8(ats.count + 1)] + ats }
        if let type { return [0x01, type, UInt8(targetData.count)] + targetData }
        return [0x01] + targetData
    }

    /// When a search without a card gives up; nil means it waits until a card comes or the host aborts.
    private func searchDeadline(_ command: [UInt8], now: Instant) -> Instant? {
        if command[1] == 0x4A {
            if passiveActivationRetries == 0xFF { return nil }
            return now + activationAttempt * Int(passiveActivationRetries)
        }
        let params = Array(command.dropFirst(2))
        guard params.count >= 2 else { return now }
        if params[0] == 0xFF { return nil }
        let types = max(1, params.count - 2)
        return now + .milliseconds(150) * (Int(params[0]) * Int(params[1]) * types)
    }

    /// Sends a frame to the selected card and builds the status byte plus data of the reply.
    private mutating func exchange(_ frame: [UInt8], raw: Bool) -> [UInt8] {
        guard targetSelected else { return [0x27] }
        if let remaining = commandsBeforeRemoval {
            if remaining == 0 {
                commandsBeforeRemoval = nil
                removeCard()
                return [0x01]
            }
            commandsBeforeRemoval = remaining - 1
        }
        guard let card else { return [0x01] }
        var command = frame
        let txCRC = registers[0x6302, default: 0x80] & 0x80 != 0
        let rxCRC = registers[0x6303, default: 0x80] & 0x80 != 0
        if raw && !txCRC {
            guard command.count >= 3, ISO14443A.crc(command.dropLast(2)) == Array(command.suffix(2)) else {
                return [0x01]
            }
            command.removeLast(2)
        }
        switch card {
        case .tag(var tag):
            var tear = false
            if tag.isWrite(command), let remaining = writesBeforeTear {
                if remaining == 0 {
                    tear = true
                    writesBeforeTear = nil
                } else {
                    writesBeforeTear = remaining - 1
                }
            }
            let answer = tag.handle(command, tearWrite: tear)
            self.card = .tag(tag)
            if tear {
                removeCard()
                return [0x01]
            }
            switch answer {
            case .data(let bytes): return [0x00] + bytes + (raw && !rxCRC ? ISO14443A.crc(bytes) : [])
            case .ack: return raw ? [0x00, 0x0A] : [0x00]
            case .nak(let code): return raw ? [0x00, code] : [0x14]
            case .silent: return [0x01]
            }
        case .mifareClassic:
            return raw ? [0x00, 0x04] : [0x14]
        case .isoDep:
            return [0x00, 0x6D, 0x00]
        case .desfire:
            return [0x01]  // answered by exchangeDESFire
        }
    }

    /// An exchange with a DESFire card: the PN532 carries the APDU or native frame (it does the ISO-DEP blocks
    /// itself), and the answer is held for the exchange's time (`DESFireTiming`). A tear armed with
    /// `tearAfterFrames` takes the card away on its frame, which gets no answer (status 01, a timeout).
    private mutating func exchangeDESFire(_ code: UInt8, _ frame: [UInt8], raw: Bool, now: Instant) -> [UInt8] {
        guard case .desfire(var desfire) = card else { return reply(code, [0x01]) }
        var command = frame
        let txCRC = registers[0x6302, default: 0x80] & 0x80 != 0
        let rxCRC = registers[0x6303, default: 0x80] & 0x80 != 0
        if raw && !txCRC {
            guard command.count >= 3, ISO14443A.crc(command.dropLast(2)) == Array(command.suffix(2)) else {
                return reply(code, [0x01])
            }
            command.removeLast(2)
        }
        if let remaining = commandsBeforeRemoval {
            commandsBeforeRemoval = remaining == 0 ? nil : remaining - 1
            if remaining == 0 {
                removeCard()
                return reply(code, [0x01])
            }
        }
        var tear = false
        if let remaining = framesBeforeTear {
            if remaining == 0 {
                tear = true
                framesBeforeTear = nil
            } else {
                framesBeforeTear = remaining - 1
            }
        }
        let answer = desfire.receive(command, tearing: tear)
        self.card = .desfire(desfire)
        let duration = DESFireTiming.exchange(
            commandBytes: command.count, answerBytes: answer?.count ?? 0, cost: desfire.lastCost)
        let payload: [UInt8]
        if let answer {
            payload = [0x00] + answer + (raw && !rxCRC ? ISO14443A.crc(answer) : [])
        } else {
            if tear { removeCard() }
            payload = [0x01]
        }
        delayedReply = (reply(code, payload), now + duration)
        return []
    }
}

/// ISO/IEC 14443-3 type A helpers.
public enum ISO14443A {
    /// CRC_A (initial value 6363, reflected polynomial 8408), low byte first.
    public static func crc(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var crc: UInt16 = 0x6363
        for byte in bytes {
            var b = byte ^ UInt8(crc & 0xFF)
            b ^= b << 4
            crc = (crc >> 8) ^ (UInt16(b) << 8) ^ (UInt16(b) << 3) ^ (UInt16(b) >> 4)
        }
        return [UInt8(crc & 0xFF), UInt8(crc >> 8)]
    }
}
