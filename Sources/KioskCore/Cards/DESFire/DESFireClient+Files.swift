/// The file commands of `DESFireClient` (MIFARE DESFire EV1 data sheet, command set): a selected application's
/// files, their data and records, and transactions.
///
/// Offsets, lengths, sizes and record counts are sent as three bytes, least significant first. The file's data is
/// protected as `communication` says when a session is open; the caller gives the file's communication setting,
/// as it knows the card's layout (`getFileSettings` reads it from the card).
extension DESFireClient {
    /// GetFileIDs (6F): the selected application's file numbers.
    public func getFileIDs() throws(DESFireCommandError) -> [UInt8] {
        try run(0x6F)
    }

    /// GetFileSettings (F5) of `file`.
    public func getFileSettings(_ file: UInt8) throws(DESFireCommandError) -> DESFireFileSettings {
        do {
            return try DESFireFileSettings(answer: run(0xF5, header: [file]))
        } catch {
            close()
            throw error
        }
    }

    /// CreateStdDataFile (CD): a data file of `size` bytes, written at once.
    public func createStandardDataFile(
        _ file: UInt8, communication: DESFireCommunication, accessRights: DESFireAccessRights, size: Int
    ) throws(DESFireCommandError) {
        try createDataFile(0xCD, file, communication, accessRights, size)
    }

    /// CreateBackupDataFile (CB): a data file of `size` bytes whose writes take effect at CommitTransaction.
    public func createBackupDataFile(
        _ file: UInt8, communication: DESFireCommunication, accessRights: DESFireAccessRights, size: Int
    ) throws(DESFireCommandError) {
        try createDataFile(0xCB, file, communication, accessRights, size)
    }

    /// CreateCyclicRecordFile (C0): `maximumRecords` records of `recordSize` bytes, the oldest overwritten when
    /// full (one record is kept free for the transaction: it holds `maximumRecords` − 1 committed records).
    public func createCyclicRecordFile(
        _ file: UInt8, communication: DESFireCommunication, accessRights: DESFireAccessRights, recordSize: Int,
        maximumRecords: Int
    ) throws(DESFireCommandError) {
        guard file <= 0x1F, (1...0xFF_FFFF).contains(recordSize), (2...0xFF_FFFF).contains(maximumRecords) else {
            throw .invalidArgument("CreateCyclicRecordFile")
        }
        let header =
            [file, communication.rawValue] + accessRights.bytes + DESFireBytes.littleEndian(recordSize, count: 3)
            + DESFireBytes.littleEndian(maximumRecords, count: 3)
        try expectEmpty(run(0xC0, header: header), "CreateCyclicRecordFile")
    }

    /// DeleteFile (DF).
    public func deleteFile(_ file: UInt8) throws(DESFireCommandError) {
        try expectEmpty(run(0xDF, header: [file]), "DeleteFile")
    }

    /// ReadData (BD): `length` bytes (1 or more) from `offset` of a data file.
    public func readData(_ file: UInt8, offset: Int, length: Int, communication: DESFireCommunication)
        throws(DESFireCommandError) -> [UInt8]
    {
        guard (0...0xFF_FFFF).contains(offset), (1...DESFireClient.maximumResponseLength - 32).contains(length) else {
            throw .invalidArgument("ReadData")
        }
        let header = [file] + DESFireBytes.littleEndian(offset, count: 3) + DESFireBytes.littleEndian(length, count: 3)
        return try read(0xBD, header: header, length: length, communication: communication)
    }

    /// WriteData (3D): `data` from `offset` of a data file (a backup file's at the next CommitTransaction).
    public func writeData(_ file: UInt8, offset: Int, data: [UInt8], communication: DESFireCommunication)
        throws(DESFireCommandError)
    {
        try write(0x3D, file, offset: offset, data: data, communication: communication)
    }

    /// WriteRecord (3B): `data` from `offset` of the record being written (a new one, taking effect at the next
    /// CommitTransaction).
    public func writeRecord(_ file: UInt8, offset: Int = 0, data: [UInt8], communication: DESFireCommunication)
        throws(DESFireCommandError)
    {
        try write(0x3B, file, offset: offset, data: data, communication: communication)
    }

    /// ReadRecords (BB): `count` records (1 or more) of `recordSize` bytes, from the `newest`-th newest one
    /// (0: the newest) towards older ones, oldest first in the answer. Reading more records than the file holds
    /// is a BOUNDARY_ERROR.
    public func readRecords(
        _ file: UInt8, newest: Int = 0, count: Int, recordSize: Int, communication: DESFireCommunication
    ) throws(DESFireCommandError) -> [UInt8] {
        guard (0...0xFF_FFFF).contains(newest), count >= 1, recordSize >= 1,
            count * recordSize <= DESFireClient.maximumResponseLength - 32
        else { throw .invalidArgument("ReadRecords") }
        let header = [file] + DESFireBytes.littleEndian(newest, count: 3) + DESFireBytes.littleEndian(count, count: 3)
        return try read(0xBB, header: header, length: count * recordSize, communication: communication)
    }

    /// ClearRecordFile (EB): empties a record file at the next CommitTransaction.
    public func clearRecordFile(_ file: UInt8) throws(DESFireCommandError) {
        try expectEmpty(run(0xEB, header: [file]), "ClearRecordFile")
    }

    /// CommitTransaction (C7): every write to backup and record files since the selection or the last commit takes
    /// effect at once. A card taken away before the commit keeps none of them.
    public func commitTransaction() throws(DESFireCommandError) {
        try expectEmpty(run(0xC7), "CommitTransaction")
    }

    /// AbortTransaction (A7): forgets every write to backup and record files since the last commit.
    public func abortTransaction() throws(DESFireCommandError) {
        try expectEmpty(run(0xA7), "AbortTransaction")
    }

    // MARK: - Helpers

    private func createDataFile(
        _ command: UInt8, _ file: UInt8, _ communication: DESFireCommunication, _ accessRights: DESFireAccessRights,
        _ size: Int
    ) throws(DESFireCommandError) {
        guard file <= 0x1F, (1...0xFF_FFFF).contains(size) else { throw .invalidArgument("CreateDataFile") }
        let header =
            [file, communication.rawValue] + accessRights.bytes + DESFireBytes.littleEndian(size, count: 3)
        try expectEmpty(run(command, header: header), "CreateDataFile")
    }

    private func read(_ command: UInt8, header: [UInt8], length: Int, communication: DESFireCommunication)
        throws(DESFireCommandError) -> [UInt8]
    {
        let answer: Answer =
            isAuthenticated && communication == .enciphered ? .enciphered(length: length) : .maced
        var data = try run(command, header: header, answer: answer)
        guard data.count == length else {
            crypto.wipe(&data)
            throw malformed("ReadData")
        }
        return data
    }

    private func write(
        _ command: UInt8, _ file: UInt8, offset: Int, data: [UInt8], communication: DESFireCommunication
    ) throws(DESFireCommandError) {
        guard (0...0xFF_FFFF).contains(offset), !data.isEmpty, data.count <= 0xFF_FFFF else {
            throw .invalidArgument("WriteData")
        }
        let header =
            [file] + DESFireBytes.littleEndian(offset, count: 3) + DESFireBytes.littleEndian(data.count, count: 3)
        let protection = isAuthenticated ? Protection(communication) : .plain
        try expectEmpty(run(command, header: header, data: data, protection: protection), "WriteData")
    }
}
