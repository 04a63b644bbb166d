extension RegionWarningIndex {
    /// This index as a new stored file (`RegionWarningIndex+Stored.swift`) with `added`'s records merged in (as
    /// `Builder.build` would sort them all: the records of a key in the order they were added, this index's first),
    /// duplicates dropped (a CKPR/1 record keeps its latest publication day) and records older than the parameters'
    /// maximum age at `now` dropped. The file is produced a piece at a time (`Rewrite.next`) while this index's
    /// entries are read a piece at a time through its file, so that neither the kept records nor the new file are
    /// ever held whole: adding a package to a large index costs the package's sort, one pass over the file and the
    /// new compact keys. With nothing added it drops what is past the maximum age (a prune). This index is left as it
    /// was: it can still be read while the rewrite runs.
    public func rewriting(
        adding added: consuming Builder = Builder(), now: Int64, parameters: PresenceTracingParameters = .cwaProduction
    ) -> Rewrite {
        let deadline = WarningMatcher.ageDeadline(now: now, parameters: parameters)
        let runs = added.sortedRuns(deadline: deadline)
        var reports = cwaReports.current(at: deadline)
        for list in runs.cwaReports.values {
            for published in list { reports.add(published) }
        }
        return Rewrite(
            ckpr: RegionEntryMerge(old: ckpr, new: runs.ckpr, deadline: deadline),
            cwaWarnings: RegionEntryMerge(old: cwaWarnings, new: runs.cwaWarnings, deadline: deadline),
            cwaReports: reports)
    }

    /// A new stored file in the making (`rewriting`): its bytes piece by piece, then the index over the file they
    /// were written to.
    public struct Rewrite {
        private enum Stage {
            case header
            /// The entries of `runs[run]`.
            case entries(run: Int)
            case reportsAndTrailer
            case done
        }

        private var stage = Stage.header
        /// The CKPR/1 entries, then the CWA warnings, as the file holds them.
        private var runs: [RegionEntryMerge]
        /// How many entries of each run were given.
        private var counts: [Int]
        private let cwaReports: [[UInt8]: [PublishedReport]]
        /// How many bytes were given.
        private var size = 0

        init(ckpr: RegionEntryMerge, cwaWarnings: RegionEntryMerge, cwaReports: [[UInt8]: [PublishedReport]]) {
            runs = [ckpr, cwaWarnings]
            counts = [0, 0]
            self.cwaReports = cwaReports
        }

        /// The file's next piece, to be appended to what was given before; nil once the file is whole. Throws when
        /// the index's own file cannot be read (the new file is then not to be kept).
        public mutating func next() throws(RegionWarningReadError) -> [UInt8]? {
            let piece: [UInt8]
            switch stage {
            case .header:
                piece = RegionWarningIndex.storedHeader
                stage = .entries(run: 0)
            case .entries(let run):
                guard let entries = try runs[run].next() else {
                    stage = run + 1 < runs.count ? .entries(run: run + 1) : .reportsAndTrailer
                    return try next()
                }
                counts[run] += entries.count / runs[run].kind.stride
                piece = entries
            case .reportsAndTrailer:
                let (reports, reportCount) = RegionWarningIndex.storedReports(cwaReports)
                piece =
                    reports
                    + RegionWarningIndex.storedTrailer(
                        ckprCount: counts[0], cwaWarningCount: counts[1], reportCount: reportCount)
                stage = .done
            case .done:
                return nil
            }
            size += piece.count
            return piece
        }

        /// The index over `file`, which holds every piece `next` gave, in order (nothing else). Throws when it is
        /// not as long as they were.
        public func index(over file: some RegionWarningFileReading) throws(RegionWarningReadError)
            -> RegionWarningIndex
        {
            guard case .done = stage, file.size == size else { throw .cutShort }
            let header = RegionWarningIndex.storedHeader.count
            return RegionWarningIndex(
                ckpr: runs[0].collector.entries(file: file, offset: header),
                cwaWarnings: runs[1].collector.entries(
                    file: file, offset: header + counts[0] * RegionEntryKind.ckpr.stride),
                cwaReports: cwaReports)
        }
    }
}
