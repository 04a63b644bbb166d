public import Foundation
public import KioskCore
public import KioskNFC
public import KioskPrinter

/// Writes fresh card secrets with the NFC reader (`CardEnroller` for the station).
public struct NFCCardEnroller<Crypto: CryptoProvider>: CardEnroller {
    let reader: NFCReader<Crypto>

    public init(reader: NFCReader<Crypto>) { self.reader = reader }

    public func enrol(_ secret: CardSecret) async throws(StationFailure) {
        let content = CardContent(kind: secret.kind, secret: secret.entropy)
        let result = await withTimeout(.seconds(20)) { await reader.enrolNextCard(content) }
        switch result {
        case nil: throw .enrolment(reason: "no card was placed on the reader in time")
        case .success?: return
        case .failure(.cardRemoved)?: throw .cardRemoved
        case .failure(let error)?: throw .enrolment(reason: error.description)
        }
    }
}

/// Runs `body`, giving up after `timeout` (nil). `body` must end when its task is cancelled: the group waits for it.
func withTimeout<T: Sendable>(_ timeout: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
    await withTaskGroup(of: T?.self) { group in
        group.addTask { await body() }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

extension CardRead {
    /// What the reader's result means to the station.
    public init(_ result: CardReadResult) {
        switch result {
        case .kioskCard(let content):
            if let secret = try? CardSecret(kind: content.kind, entropy: content.secret) {
                self = .card(secret)
            } else {
                self = .damaged
            }
        case .notAKioskCard(.blank): self = .blank
        case .notAKioskCard(.unsupportedCardType): self = .foreign(.unsupportedCardType)
        case .notAKioskCard(.otherContent): self = .foreign(.otherContent)
        case .notAKioskCard(.otherPassword): self = .foreign(.otherPassword)
        case .notAKioskCard(.wrongAcknowledge): self = .foreign(.untrusted)
        case .incompleteEnrolment: self = .damaged
        case .unsupportedLayout: self = .foreign(.newerLayout)
        case .notAKioskCard(.otherRegion): self = .foreign(.otherRegion)
        case .diaryCard(let card): self = .diary(card)
        case .newDiaryCard: self = .newDiaryCard
        }
    }
}

/// A kiosk without a warnings feed configured: nothing matches.
public struct NoWarnings: WarningSource {
    public init() {}
    public func match(_ stays: [MatchableStay]) async -> ExposureResult? { nil }
    public var holdsWarnings: Bool { get async { false } }
}

/// A kiosk without a printer: every job fails with a clear reason (the station shows it and loses nothing).
public struct NoPrinter: ReceiptPrinter {
    public init() {}
    public func print(_ bytes: [UInt8]) async throws(PrinterError) {
        throw PrinterError.notConfigured
    }
}

/// A kiosk that says nothing (no speaker given).
public struct NoSpeaker: Speaker {
    public init() {}
    public func say(_ utterance: Utterance) {}
    public func stop() {}
}

/// A kiosk without lights (no gpiochip, or none configured).
public struct NoLights: Indicator {
    public init() {}
    public func show(_ patterns: [IndicatorPattern], sound: Bool) async {}
    public func clear() async {}
}
