public import KioskCore

/// A QR code's modules, as produced by a QR encoder (libqrencode in `KioskPrinter`): `size` × `size`, `true` is dark.
public struct QRMatrix: Sendable, Equatable {
    public let size: Int
    public let modules: [Bool]

    public init(size: Int, modules: [Bool]) {
        precondition(size > 0 && modules.count == size * size, "a QR matrix is size × size modules")
        self.size = size
        self.modules = modules
    }

    public subscript(x: Int, y: Int) -> Bool { modules[y * size + x] }

    /// The matrix as a printer raster: every module `dotsPerModule` × `dotsPerModule` dots, with a white quiet zone of
    /// `quietZoneModules` modules on every side (the QR standard asks for 4).
    public func raster(dotsPerModule: Int, quietZoneModules: Int = 4) -> MonoBitmap {
        precondition(dotsPerModule > 0 && quietZoneModules >= 0, "dots per module must be positive")
        let side = (size + 2 * quietZoneModules) * dotsPerModule
        var bitmap = MonoBitmap(width: side, height: side)
        let offset = quietZoneModules * dotsPerModule
        for y in 0..<size {
            for x in 0..<size where self[x, y] {
                for dy in 0..<dotsPerModule {
                    for dx in 0..<dotsPerModule {
                        bitmap[offset + x * dotsPerModule + dx, offset + y * dotsPerModule + dy] = true
                    }
                }
            }
        }
        return bitmap
    }

    /// The largest whole number of dots per module that fits `maximumDots` with the quiet zone, capped at `cap`
    /// (big modules waste paper); nil if even one dot per module does not fit.
    public func dotsPerModule(fitting maximumDots: Int, quietZoneModules: Int = 4, cap: Int = 8) -> Int? {
        let modulesAcross = size + 2 * quietZoneModules
        let fit = min(maximumDots / modulesAcross, cap)
        return fit >= 1 ? fit : nil
    }
}
