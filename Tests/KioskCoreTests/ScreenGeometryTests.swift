import Foundation
import KioskCore
import Testing

/// What the panel and the viewing distance make of the text (EN 301 549 5.1.4: a capital H subtends at least 0.7°
/// at the most common viewing distance), computed here from the clause by hand.
@Suite struct ScreenGeometryTests {
    @Test func theDefaultSevenInchPanelAtFortyCentimetres() {
        let screen = ScreenGeometry()
        // 178 mm over √(800² + 480²) = 932.95 px.
        #expect(abs(screen.millimetresPerPixel - 0.19079) < 0.0001)
        // 2 · 400 mm · tan(0.35°) = 4.887 mm.
        #expect(abs(screen.minimumCapitalHeightMillimetres - 4.887) < 0.001)
        #expect(abs(screen.minimumCapitalHeightPixels - 25.61) < 0.01)
        // DejaVu Sans's capital H is 1493/2048 em: 35.1 px, rounded up.
        #expect(screen.textPixels == 36)
        #expect(Double(screen.textPixels) * ScreenGeometry.capitalHeightPerEm >= screen.minimumCapitalHeightPixels)
        // About ten lines of 36 px text: one stay a page besides the title, the lines and the choices.
        #expect(screen.staysPerPage == 1)
    }

    @Test func aLargerPanelOrALongerDistance() {
        var wide = ScreenGeometry()
        (wide.widthPixels, wide.heightPixels, wide.diagonalMillimetres) = (1920, 1080, 396)
        // 0.1798 mm a pixel: a capital H of 27.2 px, text of 38 px, six stays a page.
        #expect(wide.textPixels == 38)
        #expect(wide.staysPerPage == 6)
        var far = ScreenGeometry()
        far.viewingDistanceCentimetres = 80
        // Twice as far: twice the size; the page shows fewer things, never smaller ones.
        #expect(far.textPixels == 71)
        #expect(far.staysPerPage == 1)
    }
}
