// Test support for the kill -9 and power-cut tests: taps cards in a burst against a real SQLiteCheckInStore and
// prints one line per acknowledged (durably committed) tap, so that a test can SIGKILL it (or the VM it runs in) at a
// random moment and then check that every acknowledged tap survived.
//
//   kiosk-store-stress <state-directory> <taps> <cards>
//   kiosk-store-stress --check <state-directory> <acknowledgements-file>
//
// Output (stdout, unbuffered): "CARD <printed card text>" for each card first, then "ACK in <stay id hex>" or
// "ACK out <stay id hex>" after each tap's commit returned. Exit status 0 after all taps, 2 on bad arguments,
// 1 when a tap was refused (the reason on stderr). Prints card secrets: for tests only, never on a kiosk.
//
// With --check it opens the store, runs `PRAGMA integrity_check` and looks up every acknowledged tap of the file
// (lines as printed above, from any number of runs; other lines are ignored), then prints one line:
//   KIOSK-STORE-CHECK: PASS integrity=ok cards=<n> in=<n> out=<n>
//   KIOSK-STORE-CHECK: FAIL <what> (lost check-ins, lost checkouts, integrity or an error)
// and exits 0 or 1.

import Foundation
import KioskCore
import KioskOpenSSL
import KioskStore

let arguments = CommandLine.arguments
if arguments.count == 4, arguments[1] == "--check" {
    exit(check(directory: arguments[2], acknowledgements: arguments[3]))
}
guard arguments.count == 4, let taps = Int(arguments[2]), let cardCount = Int(arguments[3]), cardCount > 0 else {
    FileHandle.standardError.write(Data("usage: kiosk-store-stress <state-directory> <taps> <cards>\n".utf8))
    exit(2)
}

func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let crypto = OpenSSLCrypto()
let store: SQLiteCheckInStore
do { store = try SQLiteCheckInStore(directory: arguments[1]) } catch { fail("cannot open the store: \(error)") }
let desk = CheckInDesk(store: store, crypto: crypto, policy: CheckInPolicy(debounce: 0, dailyLimit: Int.max))
var cards = [CardSecret]()
for _ in 0..<cardCount {
    guard let card = try? CardSecret.generate(kind: .visitor, crypto: crypto) else { fail("no randomness") }
    cards.append(card)
    emit("CARD \(card.printedText)")
}
let venue = StayVenue(
    locationId: [UInt8](repeating: 0x5a, count: 32), description: "Stress venue", address: "",
    autoCheckout: AutoCheckoutRule(maximumStay: 8 * 3600))
var now = Date()
for index in 0..<taps {
    // Each tap a second later than the last, so taps of one card alternate in, out, in…
    now = now.addingTimeInterval(1)
    switch desk.tap(cards[index % cardCount], at: venue, clock: ClockReading(now: now, isSynchronized: true)) {
    case .checkedIn(let id, _, _): emit("ACK in \(id.hex)")
    case .checkedOut(let id, _): emit("ACK out \(id.hex)")
    case .alreadyRegistered: fail("unexpected debounce")
    case .refused(let reason): fail("refused: \(reason)")
    }
}

/// The `--check` mode: see the header.
func check(directory: String, acknowledgements: String) -> Int32 {
    func report(_ line: String) -> Int32 {
        emit("KIOSK-STORE-CHECK: " + line)
        return line.hasPrefix("PASS") ? 0 : 1
    }
    guard let text = try? String(contentsOfFile: acknowledgements, encoding: .utf8) else {
        return report("FAIL cannot read the acknowledgements")
    }
    var cards = [CardSecret]()
    var checkedIn = [String]()
    var checkedOut = [String]()
    for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
        let parts = line.split(separator: " ")
        // A line cut by the kill has no newline and may be incomplete: accept only complete shapes.
        if parts.count == 2, parts[0] == "CARD", let card = try? CardSecret(printedText: String(parts[1])) {
            cards.append(card)
        } else if parts.count == 3, parts[0] == "ACK", parts[2].count == 32 {
            if parts[1] == "in" { checkedIn.append(String(parts[2])) }
            if parts[1] == "out" { checkedOut.append(String(parts[2])) }
        }
    }
    let crypto = OpenSSLCrypto()
    let store: SQLiteCheckInStore
    do { store = try SQLiteCheckInStore(directory: directory) } catch {
        return report("FAIL cannot open the store: \(error)")
    }
    defer { try? store.close() }
    do {
        guard try store.integrityCheck() else { return report("FAIL integrity_check") }
    } catch { return report("FAIL integrity_check: \(error)") }
    let desk = CheckInDesk(store: store, crypto: crypto)
    var found = [String: StaySummary]()
    for card in cards {
        do {
            for stay in try desk.stays(of: card, clock: ClockReading(now: Date(), isSynchronized: true)) {
                found[stay.id.hex] = stay
            }
        } catch { return report("FAIL lookup: \(error)") }
    }
    let lostIn = checkedIn.filter { found[$0] == nil }.count
    let lostOut = checkedOut.filter { found[$0]?.end == nil }.count
    guard lostIn == 0, lostOut == 0 else {
        return report(
            "FAIL lost check-ins=\(lostIn) of \(checkedIn.count), checkouts=\(lostOut) of \(checkedOut.count)")
    }
    return report("PASS integrity=ok cards=\(cards.count) in=\(checkedIn.count) out=\(checkedOut.count)")
}
