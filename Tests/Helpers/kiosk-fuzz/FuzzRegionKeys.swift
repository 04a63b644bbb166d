import KioskCore

/// Input: a region key export file (`kiosk region import`, docs/region.md). A file read is written back as text that
/// reads to the same export; a refused one says why without repeating the file.
func checkRegionKeyExport(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let export: RegionKeyExport
    do {
        export = try RegionKeyExport.parse(text)
    } catch {
        require(!error.reason.isEmpty, "a refused region key export says nothing")
        requireNoEcho(error.description, of: bytes)
        return
    }
    require(
        export.systemIdentifier.count == DiaryDiversification.systemIdentifierLength, "a system identifier's length")
    require(!export.cards.isEmpty, "an export without a card key")
    require(
        (export.cards + [RegionKeyExport.CardKey(generation: 1, wrapped: export.dayKey.wrapped)])
            .allSatisfy { $0.wrapped.count == RegionKeyExport.wrappedLength }, "a wrapped key's length")
    require((try? RegionKeyExport.parse(export.text)) == export, "a region key export does not read back")
}
