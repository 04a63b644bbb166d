import KioskCore

/// Input: 8 bytes of a GET_VERSION answer, 7 bytes of UID, then the user memory read from page 4 on. Whatever the
/// memory holds, a card read as enrolled must have a valid kind and secret, and writing that content back to the
/// same UID must read as the same card again.
func checkCardMemory(_ bytes: [UInt8]) {
    let version = Array(bytes.prefix(8))
    if let model = NTAGModel(version: version) {
        require(model.version[2] == version[2] && model.version[6] == version[6], "model from another version answer")
        require(NTAGModel(version: model.version) == model, "a model's own version answer names another model")
    }
    let uid = Array(bytes.dropFirst(8).prefix(7))
    let memory = Array(bytes.dropFirst(15))
    let reading = CardImage.decode(memory, uid: uid)
    if memory.count < CardImage.byteCount { require(reading == .foreign, "a short read is not a card") }
    guard case .enrolled(let content) = reading else { return }
    require(CardImage.secretLengths.contains(content.secret.count), "an enrolled card with a secret of a wrong length")
    require(Array(memory.prefix(2)) == CardImage.magic, "an enrolled card without the magic")
    require(uid.count == 7, "a card enrolled under a UID that cannot be written")
    guard let written = try? CardImage.encode(content, uid: uid) else { fatalError("enrolled content does not encode") }
    require(CardImage.decode(written, uid: uid) == .enrolled(content), "written content does not read back")
    require(written.prefix(5).elementsEqual(memory.prefix(5)), "written header differs from the one read")
}

/// The printed code parses to a secret or a typed error that quotes nothing; a parsed secret prints as a code that
/// parses to the same secret, and the code reads the same in lower case.
func checkCardCode(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    let secret: CardSecret
    do {
        secret = try CardSecret(printedText: text)
    } catch {
        requireNoEcho(error.description, of: bytes)
        return
    }
    require(secret.entropy.count == CardSecret.entropyLength, "a secret of a wrong length")
    let printed = secret.printedText
    require(printed.hasPrefix(CardSecret.textPrefix), "a printed code without its prefix")
    require((try? CardSecret(printedText: printed)) == secret, "the printed code does not read back")
    require((try? CardSecret(printedText: printed.lowercased())) == secret, "the printed code in lower case differs")
    require((try? CardSecret(layoutBytes: secret.layoutBytes)) == secret, "the layout bytes do not read back")
}
