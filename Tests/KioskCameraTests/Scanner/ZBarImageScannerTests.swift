import Foundation
import KioskCamera
import KioskCore
import KioskOpenSSL
import Testing

/// libzbar and libpng for real, on images made by `qrencode` and netpbm (`Fixtures/make-fixtures.sh`).
@Suite struct ZBarImageScannerTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static func path(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    static let seedExample =
        "https://e.coronawarn.app?v=1#CAESEwgBEgdGcmlzZXVyGgZCZXJsaW4adggBEmCDAszMTXne1DAA5_YxmhRdd_NZN2VKl9L32Jl9-ZybE4b2eNIrhFOKYU4XAOHq3RPLDxdHTW6ANiO24rCOO4rj06HzcVZy3pel58-L1KSPG-_PneL2BoyZQRz3qlu2hoAaEATXwzyyIshzBHREtsdmc6kiBggBEAUYeA"

    @Test(arguments: [
        "seed-example.png", "seed-example-colour.png", "seed-example-16bit.png",
        "seed-example.pgm", "seed-example-plain.pgm", "seed-example-16bit.pgm",
    ])
    func readsSeedExample(_ name: String) throws {
        let image = try ImageLoader.load(path: Self.path(name))
        #expect(image.pixels.count == image.width * image.height)
        let scanner = try ZBarImageScanner()
        let codes = try scanner.scan(image)
        #expect(codes.map(\.text) == [Self.seedExample])
        let venue = try VenueCodeParser.parse(codes[0].text, crypto: OpenSSLCrypto())
        #expect(venue.name == "Friseur")
    }

    @Test func pngAndPGMDecodeToTheSamePixels() throws {
        let png = try ImageLoader.load(path: Self.path("seed-example.png"))
        let pgm = try ImageLoader.load(path: Self.path("seed-example.pgm"))
        let deep = try ImageLoader.load(path: Self.path("seed-example-16bit.pgm"))
        #expect(png == pgm)
        #expect(deep == pgm)
        #expect(png.width == 195 && png.height == 195)
        #expect(Set(png.pixels) == [0, 255])
    }

    @Test func findsEveryCodeInAnImage() throws {
        let codes = try ZBarImageScanner().scan(ImageLoader.load(path: Self.path("two-codes.png")))
        #expect(codes.count == 2)
        #expect(
            Set(codes.map { String($0.text.prefix(24)) }) == ["https://e.coronawarn.app", "https://tac.gouv.fr?v=0#"])
    }

    @Test func noCodeGivesEmptyList() throws {
        #expect(try ZBarImageScanner().scan(ImageLoader.load(path: Self.path("blank.png"))).isEmpty)
    }

    /// `ZBAR_CFG_BINARY` and the symbol length: NUL bytes and non-UTF-8 bytes come back exactly.
    @Test func binaryBytesAreExact() throws {
        let codes = try ZBarImageScanner().scan(ImageLoader.load(path: Self.path("binary.png")))
        #expect(
            codes.map(\.bytes) == [[0x00, 0x01, 0x80, 0xff, 0xfe] + Array("KIOSK".utf8) + [0x00] + Array("end".utf8)])
    }

    @Test func rejectsWhatIsNotAnImage() throws {
        #expect(throws: ImageLoadError.unsupportedFormat) { try ImageLoader.load(path: Self.path("not-an-image.txt")) }
        #expect(throws: ImageLoadError.self) { try ImageLoader.load(path: Self.path("missing.png")) }
        var png = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("seed-example.png")))
        png.removeLast(png.count / 2)
        #expect(throws: ImageLoadError.self) { try ImageLoader.decodePNG(png) }
        #expect(throws: ImageLoadError.self) { try ImageLoader.decodePGM(Array("P5\n10 10\n255\n\u{0}".utf8)) }
        #expect(throws: ImageLoadError.self) { try ImageLoader.decodePGM(Array("P2 2 2 255 0 0 0".utf8)) }
        #expect(throws: ImageLoadError.tooLarge(width: 100_000, height: 100_000)) {
            try ImageLoader.decodePGM(Array("P5 100000 100000 255\n".utf8))
        }
        #expect(
            try ImageLoader.decodePGM(Array("P2\n# comment\n2 1\n3\n0 3\n".utf8))
                == GreyImage(width: 2, height: 1, pixels: [0, 255]))
        #expect(throws: ZBarError.invalidImage) {
            try ZBarImageScanner().scan(GreyImage(width: 3, height: 3, pixels: [0]))
        }
    }
}
