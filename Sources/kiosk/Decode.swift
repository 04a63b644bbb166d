import ArgumentParser
import Foundation
import KioskCamera
import KioskCore
import KioskOpenSSL

/// `kiosk decode <url | image file> [--json]`: what a venue QR code contains, for a field worker.
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show what a venue QR code contains.",
        discussion: """
            Give the text of a QR code (e.g. https://e.coronawarn.app?v=1#…) or a PNG or PGM image of one or more \
            codes. Reads CWA (also inside luca and other vendors' codes), SwissCovid, NotifyMe and Cléa codes.

            With --json the output is one object: {"source": "text"|"image", "codes": [ … ]}, one entry per code, \
            each with "ok" and either the venue ("format", "locationIdHex", "locationIdHashHex", "name", …; null where \
            the format has no such field) or "error" {"kind", "cwaErrorCode", "message"}.

            Exit status: 0 when every code is a valid venue, 1 when the image holds no QR code, 2 when a code is not \
            a valid venue code, 3 when the image cannot be read.
            """
    )

    @Argument(help: "The QR code's text, or the path of a PNG or PGM image.")
    var input: String

    @Flag(help: "Print a machine-readable JSON object instead of text.")
    var json = false

    func run() throws {
        let crypto = OpenSSLCrypto()
        let isImage = FileManager.default.fileExists(atPath: input)
        let texts: [String]
        if isImage {
            do {
                let image = try ImageLoader.load(path: input)
                texts = try ZBarImageScanner().scan(image).map(\.text)
            } catch let error as ImageLoadError {
                printError(error.message)
                throw ExitCode(3)
            } catch let error as ZBarError {
                printError(error.message)
                throw ExitCode(3)
            }
            if texts.isEmpty {
                if json {
                    print(DecodeOutput.json(source: "image", codes: []))
                } else {
                    printError(
                        "No QR code found in this image. Check that the whole code is visible, sharp and not too small."
                    )
                }
                throw ExitCode(1)
            }
        } else {
            let lower = input.lowercased()
            if [".png", ".pgm", ".pnm"].contains(where: { lower.hasSuffix($0) }) && !lower.contains("#") {
                printError("There is no image file at \(OutsideText.neutralized(input)).")
                throw ExitCode(3)
            }
            texts = [input]
        }

        let results = texts.map { text -> Result<VenueCode, VenueCodeError> in
            Result { () throws(VenueCodeError) -> VenueCode in try VenueCodeParser.parse(text, crypto: crypto) }
        }
        if json {
            print(DecodeOutput.json(source: isImage ? "image" : "text", codes: results))
        } else {
            for (index, result) in results.enumerated() {
                if results.count > 1 { print("Code \(index + 1) of \(results.count):") }
                switch result {
                case .success(let venue): print(DecodeOutput.text(venue))
                case .failure(let error): print("  Not a usable venue code: \(error.message)")
                }
                if index + 1 < results.count { print("") }
            }
        }
        if results.contains(where: { if case .failure = $0 { true } else { false } }) { throw ExitCode(2) }
    }

    private func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}
