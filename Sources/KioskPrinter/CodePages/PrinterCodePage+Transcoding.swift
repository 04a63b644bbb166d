internal import Foundation
public import KioskCore

/// One printed character: the byte that prints it, and whether a line may break there (a plain space).
struct PrintedCell: Equatable, Sendable {
    var byte: UInt8
    var isBreak: Bool

    static let question = PrintedCell(byte: UInt8(ascii: "?"), isBreak: false)
}

extension PrinterCodePage {
    /// The bytes that print one line of `text` in this code page, one byte a printed character (a newline prints
    /// as a space here: `ESCPOSEncoder.text` splits lines before it transcodes).
    ///
    /// The text is first composed (Unicode NFC), so a letter with a separate combining accent prints as the
    /// code page's accented letter. A character the code page lacks prints as its plain form: typographic
    /// quotes as `"` and `'`, dashes as `-`, `…` as `...`, `→` as `->`, `•` as `*`, `œ` as `oe`, a letter as its
    /// compatibility form without the accents the code page lacks (`ﬁ` as `fi`, `č` as `c`); what has no plain
    /// form prints as one `?`. Spaces of every kind print as a space (non-breaking ones stay non-breaking for the
    /// wrapping), a tab as a space; soft hyphens, zero-width characters and combining marks that cannot be composed
    /// print as nothing. Every other control character (C0, DEL, C1) prints as `?`, so no byte below 0x20 and no
    /// 0x7F ever comes from text.
    public func encode(_ text: some StringProtocol) -> [UInt8] {
        cells(for: String(text).precomposedStringWithCanonicalMapping).map(\.byte)
    }

    /// The printed cells of `text`, which must already be in NFC.
    func cells(for text: some StringProtocol) -> [PrintedCell] {
        text.flatMap { cells(for: $0) }
    }

    /// The cells of one character (extended grapheme cluster): its first scalar, when the rest are only marks and
    /// invisible joiners the code page cannot print; else one `?`.
    func cells(for character: Character) -> [PrintedCell] {
        if character.isNewline { return [PrintedCell(byte: 0x20, isBreak: true)] }
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return [] }
        if scalars.count > 1, !scalars.dropFirst().allSatisfy(Self.printsAsNothing) { return [.question] }
        return cells(for: first) ?? [.question]
    }

    /// The cells of one scalar, or nil when it has no plain form in this code page.
    func cells(for scalar: Unicode.Scalar) -> [PrintedCell]? {
        let value = scalar.value
        if value == 0x09 { return [PrintedCell(byte: 0x20, isBreak: true)] }
        if value < 0x20 || (0x7F...0x9F).contains(value) { return [.question] }
        if Self.printsAsNothing(scalar) { return [] }
        if scalar.properties.generalCategory == .spaceSeparator {
            return [PrintedCell(byte: 0x20, isBreak: !Self.noBreakSpaces.contains(value))]
        }
        if let byte = byte(for: scalar) { return [PrintedCell(byte: byte, isBreak: false)] }
        if let plain = Self.plainForms[scalar] { return plain.utf8.map { PrintedCell(byte: $0, isBreak: false) } }
        return compatibilityForm(of: scalar)
    }

    /// The compatibility decomposition (NFKD) of `scalar` without its combining marks, if all of it prints in this
    /// code page and it is more than spaces: `ﬁ` → `fi`, `Ÿ` → `Y`, `č` → `c`, `①` → `1`.
    private func compatibilityForm(of scalar: Unicode.Scalar) -> [PrintedCell]? {
        let decomposed = String(scalar).decomposedStringWithCompatibilityMapping.unicodeScalars
        var cells: [PrintedCell] = []
        for part in decomposed where !Self.isMark(part) {
            guard part != scalar, let byte = byte(for: part) else { return nil }
            cells.append(PrintedCell(byte: byte, isBreak: false))
        }
        return cells.contains(where: { $0.byte != 0x20 }) ? cells : nil
    }

    private static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: true
        default: false
        }
    }

    /// Marks left over after composition, variation selectors, joiners, zero-width spaces and the soft hyphen.
    private static func printsAsNothing(_ scalar: Unicode.Scalar) -> Bool {
        isMark(scalar) || invisible.contains(scalar.value) || (0xFE00...0xFE0F).contains(scalar.value)
    }

    /// Soft hyphen, zero-width space, non-joiner and joiner, word joiner, byte order mark.
    private static let invisible: Set<UInt32> = [0x00AD, 0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF]

    /// No-break space, figure space, narrow no-break space: printed as a space, never broken at.
    private static let noBreakSpaces: Set<UInt32> = [0x00A0, 0x2007, 0x202F]

    /// Plain forms of characters that decompose into nothing printable, used where the code page lacks them.
    private static let plainForms: [Unicode.Scalar: String] = [
        // Dashes and minus.
        "\u{2010}": "-", "\u{2011}": "-", "\u{2012}": "-", "\u{2013}": "-", "\u{2014}": "-", "\u{2015}": "-",
        "\u{2212}": "-", "\u{2043}": "-",
        // Quotation marks and primes.
        "\u{2018}": "'", "\u{2019}": "'", "\u{201A}": "'", "\u{201B}": "'", "\u{2032}": "'", "\u{02BC}": "'",
        "\u{201C}": "\"", "\u{201D}": "\"", "\u{201E}": "\"", "\u{201F}": "\"", "\u{2033}": "\"",
        "\u{2039}": "<", "\u{203A}": ">",
        // Arrows, comparisons.
        "\u{2192}": "->", "\u{2190}": "<-", "\u{2194}": "<->", "\u{21D2}": "=>", "\u{21D0}": "<=", "\u{21D4}": "<=>",
        "\u{2264}": "<=", "\u{2265}": ">=",
        // Bullets, ellipsis, signs.
        "\u{2022}": "*", "\u{2023}": "*", "\u{2219}": "*", "\u{25CF}": "*", "\u{2026}": "...",
        "\u{2122}": "TM", "\u{2030}": "%o", "\u{2020}": "+", "\u{2021}": "+", "\u{02C6}": "^", "\u{02DC}": "~",
        // Letters without a decomposition.
        "\u{0152}": "OE", "\u{0153}": "oe", "\u{1E9E}": "SS", "\u{0131}": "i", "\u{0141}": "L", "\u{0142}": "l",
        "\u{0110}": "D", "\u{0111}": "d",
    ]
}
