import ArgumentParser
import Foundation
import KioskCore
import KioskPKCS11

/// `kiosk region export --to FILE`: the region's keys, wrapped under `region-wrap`, for the region's other kiosks.
struct RegionExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the region's card keys and day key, wrapped under the region's wrapping key, to a file.",
        discussion: """
            The file (a small text file, "kiosk-region-keys 1") holds every key only wrapped: only a token holding \
            the same wrapping key can take them in (kiosk region import). It is written once, never over an \
            existing file, readable by its owner only.
            """
    )

    @OptionGroup var token: RegionToken

    @Option(help: "The file to write (it must not exist).")
    var to: String

    func validate() throws {
        if to.isEmpty { throw ValidationError("--to needs a file.") }
        if FileManager.default.fileExists(atPath: to) {
            throw ValidationError("\(to) exists already: give a new file (an export is never written over another).")
        }
    }

    func run() throws {
        try RegionFailure.reporting("export") {
            let (module, keys, settings) = try token.open()
            defer { module.close() }
            let export = try RegionFailure.administration { () throws(PKCS11RegionKeys.AdministrationError) in
                try keys.exportKeys()
            }
            let created = FileManager.default.createFile(
                atPath: to, contents: Data(export.text.utf8), attributes: [.posixPermissions: 0o600])
            guard created else { throw RegionFailure("\(to) cannot be written") }
            print(
                "Wrote \(to): region '\(settings.name)', card key generations"
                    + " \(export.cards.map { String($0.generation) }.joined(separator: ", ")) and the day key of"
                    + " \(regionDay(export.dayKey.day)), each wrapped under \(RegionKeyLabels.wrap).")
        }
    }
}

/// `kiosk region import FILE`: another kiosk's export into this kiosk's token.
struct RegionImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Take the region's keys from an export into this kiosk's token (it needs the same wrapping key).",
        discussion: """
            Adds the generations the token lacks and keeps those it has; takes the file's day key when the token has \
            none or an older one of the same ratchet, then moves the ratchet to today. Nothing is left half-imported.
            """
    )

    @OptionGroup var token: RegionToken

    @Argument(help: "The export file (kiosk region export --to).")
    var file: String

    func run() throws {
        try RegionFailure.reporting("import") {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw RegionFailure("the file \(file) cannot be read")
            }
            guard data.count <= RegionKeyExport.maximumBytes else {
                throw RegionFailure("\(file) is larger than an export can be (\(RegionKeyExport.maximumBytes) bytes)")
            }
            let export: RegionKeyExport
            do {
                export = try RegionKeyExport.parse(String(decoding: data, as: UTF8.self))
            } catch {
                throw RegionFailure("\(file) is not a region key export: \(error)")
            }
            let (module, keys, settings) = try token.open()
            defer { module.close() }
            let outcome = try RegionFailure.administration { () throws(PKCS11RegionKeys.AdministrationError) in
                try keys.importKeys(export)
            }
            try RegionFailure.regionKeys { () throws(RegionKeyError) in try keys.advance(today: regionToday()) }
            let day = try RegionFailure.administration { () throws(PKCS11RegionKeys.AdministrationError) in
                try keys.status().day
            }
            func list(_ generations: [UInt8]) -> String {
                generations.isEmpty ? "none" : generations.map(String.init).joined(separator: ", ")
            }
            print(
                "Imported \(file) into token '\(settings.token)' of region '\(settings.name)': generations added"
                    + " \(list(outcome.added)), kept \(list(outcome.kept)); day key of"
                    + " \(day.map(regionDay) ?? "none").")
        }
    }
}
