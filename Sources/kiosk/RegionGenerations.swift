import ArgumentParser
import Foundation
import KioskCore
import KioskPKCS11

/// `kiosk region rotate`: a new card key generation, N + 1.
struct RegionRotate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Generate the next card key generation inside this kiosk's token.",
        discussion: """
            On one kiosk; then export and import it at every other kiosk. Cards are re-keyed to the new generation at \
            their next tap at a kiosk holding both; retire the old generation afterwards (kiosk region retire).
            """
    )

    @OptionGroup var token: RegionToken

    func run() throws {
        try RegionFailure.reporting("rotate") {
            let (module, keys, settings) = try token.open()
            defer { module.close() }
            let generation = try RegionFailure.administration { () throws(PKCS11RegionKeys.AdministrationError) in
                try keys.rotate()
            }
            print(
                "Generation \(generation) (\(RegionKeyLabels.card(generation: generation))) generated on token"
                    + " '\(settings.token)'. Copy it to every kiosk of the region (kiosk region export, import); cards"
                    + " are re-keyed to it at their next tap.")
        }
    }
}

/// `kiosk region retire --generation N`: destroys a generation's card master key in this kiosk's token.
struct RegionRetire: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retire",
        abstract: "Destroy a card key generation in this kiosk's token (not the newest).",
        discussion: "Cards still of that generation no longer open at this kiosk. It cannot be undone."
    )

    @OptionGroup var token: RegionToken

    @Option(help: "The generation to retire (1-255).")
    var generation: Int

    func validate() throws {
        guard RegionKeyLabels.generations.contains(generation) else {
            throw ValidationError("--generation is 1 to 255, not \(generation).")
        }
    }

    func run() throws {
        try RegionFailure.reporting("retire") {
            let (module, keys, settings) = try token.open()
            defer { module.close() }
            let generation = UInt8(generation)
            try RegionFailure.administration { () throws(PKCS11RegionKeys.AdministrationError) in
                try keys.retire(generation: generation)
            }
            print(
                "Generation \(generation) (\(RegionKeyLabels.card(generation: generation))) destroyed on token"
                    + " '\(settings.token)': cards of generation \(generation) no longer open at this kiosk.")
        }
    }
}

/// `kiosk region status`: what the token holds for the region, no secret.
struct RegionStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the token's card key generations, the day ratchet's day and whether the wrapping key is there."
    )

    @OptionGroup var token: RegionToken

    func run() throws {
        try RegionFailure.reporting("status") {
            let (module, keys, settings) = try token.open()
            defer { module.close() }
            let status = try RegionFailure.administration { () throws(PKCS11RegionKeys.AdministrationError) in
                try keys.status()
            }
            let generations =
                status.generations.isEmpty
                ? "none"
                : status.generations.map(String.init).joined(separator: ", ") + " (newest: \(status.generations.last!))"
            let today = regionToday()
            let day = status.day.map { day in
                regionDay(day)
                    + (day < DiaryRetention.oldestOpenDay(today: today)
                        ? ", behind today − 14: moves at the next use" : "")
            }
            print("region: \(settings.name) (token '\(settings.token)', module \(settings.module))")
            print("card key generations: \(generations)")
            print("day ratchet: oldest day \(day ?? "none")")
            print("wrapping key: \(status.hasWrappingKey ? "installed" : "not installed")")
        }
    }
}
