// Test support for the kill -9 test: taps cards in a burst against a real SQLiteCheckInStore and prints one line
// per acknowledged (durably committed) tap, so that a test can SIGKILL it at a random moment and then check that
// every acknowledged tap survived.
//
//   kiosk-store-stress <state-directory> <taps> <cards>
//
// Output (stdout, line-buffered): "CARD <printed card text>" for each card first, then "ACK in <stay id hex>" or
// "ACK out <stay id hex>" after each tap's commit returned. Exit status 0 after all taps, 2 on bad arguments,
// 1 when a tap was refused (the reason on stderr). Prints card secrets: for tests only, never on a kiosk.

import Foundation
import KioskCore
import KioskOpenSSL
import KioskStore

let arguments = CommandLine.arguments
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
    case .checkedOut(let id): emit("ACK out \(id.hex)")
    case .alreadyRegistered: fail("unexpected debounce")
    case .refused(let reason): fail("refused: \(reason)")
    }
}
