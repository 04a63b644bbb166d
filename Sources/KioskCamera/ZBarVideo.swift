internal import CKioskZBar
internal import Glibc
public import KioskCore

/// The one owner of a libzbar video device (`zbar_video_t`), streaming 8-bit grey frames from a V4L2 camera. Used
/// from one thread: every call blocks (opening takes up to a second, each frame up to a frame interval).
///
/// Debian's libzbar 0.23.92 needs a fixed order (its `zbar_video_enable` crashes otherwise): the size and MMAP I/O
/// are requested before `zbar_video_open`, and `zbar_video_init` is called with a fourcc before enabling.
public final class ZBarVideo {
    private let video: OpaquePointer
    private var enabled = false
    /// The device path, e.g. `/dev/video0`.
    public let device: String
    /// The frame size the camera delivers.
    public let width: Int
    public let height: Int
    /// When the stream started: frame times count from here.
    private let started = ContinuousClock.now

    /// Opens `device` and starts streaming grey frames of about `width` × `height` pixels.
    ///
    /// The corresponding C functions are `zbar_video_create`, `zbar_video_request_size`,
    /// `zbar_video_request_iomode`, `zbar_video_open`, `zbar_video_init` and `zbar_video_enable`.
    public init(device: String, width: Int = 640, height: Int = 480) throws(CameraUnavailableReason) {
        precondition(width > 0 && height > 0 && width <= 8192 && height <= 8192, "camera frame size out of range")
        guard let video = zbar_video_create() else { throw .failed(device: device, detail: "out of memory") }
        self.video = video
        self.device = device
        zbar_video_request_size(video, UInt32(width), UInt32(height))
        zbar_video_request_iomode(video, 2)  // 2 = VIDEO_MMAP
        do throws(CameraUnavailableReason) {
            errno = 0
            guard device.withCString({ zbar_video_open(video, $0) }) == 0 else {
                throw Self.reason(errno: errno, device: device, opening: true, step: "opening the device")
            }
            errno = 0
            guard zbar_video_init(video, ckiosk_zbar_fourcc_grey()) == 0 else {
                throw Self.reason(errno: errno, device: device, opening: true, step: "setting up greyscale frames")
            }
            errno = 0
            guard zbar_video_enable(video, 1) == 0 else {
                throw Self.reason(errno: errno, device: device, opening: true, step: "starting the stream")
            }
        } catch {
            zbar_video_destroy(video)
            throw error
        }
        enabled = true
        self.width = Int(zbar_video_get_width(video))
        self.height = Int(zbar_video_get_height(video))
    }

    deinit {
        if enabled { zbar_video_enable(video, 0) }
        zbar_video_destroy(video)
    }

    /// Waits for the next frame and hands it to `scanner`, in place (the frame is not copied), with the time it
    /// arrived since the stream started.
    ///
    /// The corresponding C functions are `zbar_video_next_image` and `zbar_image_destroy` (which hands the buffer
    /// back to the camera).
    public func nextFrame(scanning scanner: FrameScanner) throws(CameraUnavailableReason) -> FrameScanner.Outcome? {
        errno = 0
        guard let image = zbar_video_next_image(video) else {
            throw Self.reason(errno: errno, device: device, opening: false, step: "reading a frame")
        }
        defer { zbar_image_destroy(image) }
        let time = started.duration(to: .now)
        let width = Int(zbar_image_get_width(image))
        let height = Int(zbar_image_get_height(image))
        let length = Int(zbar_image_get_data_length(image))
        guard let data = zbar_image_get_data(image), width > 0, height > 0, length >= width * height else {
            return nil  // a short or empty frame (some cameras send one after starting): nothing to see in it
        }
        let pixels = UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt8.self), count: width * height)
        do {
            return try scanner.frame(pixels: pixels, width: width, height: height, at: time)
        } catch {
            throw .failed(device: device, detail: error.message)
        }
    }

    /// Waits for one frame without scanning it (for `kiosk selftest`); returns its size.
    public func nextFrameSize() throws(CameraUnavailableReason) -> (width: Int, height: Int) {
        errno = 0
        guard let image = zbar_video_next_image(video) else {
            throw Self.reason(errno: errno, device: device, opening: false, step: "reading a frame")
        }
        defer { zbar_image_destroy(image) }
        return (Int(zbar_image_get_width(image)), Int(zbar_image_get_height(image)))
    }

    /// The reason for a failed libzbar call, from the `errno` it left (libzbar keeps the system error of the failing
    /// V4L2 call). Its own error text names the device and is not used.
    static func reason(errno code: Int32, device: String, opening: Bool, step: String) -> CameraUnavailableReason {
        switch code {
        case ENOENT, ENXIO: opening ? .noCamera(device: device) : .unplugged(device: device)
        case ENODEV: opening ? .noCamera(device: device) : .unplugged(device: device)
        case EIO, EPIPE:
            opening ? .failed(device: device, detail: "input/output error while \(step)") : .unplugged(device: device)
        case EBUSY: .busy(device: device)
        case EACCES, EPERM: .permissionDenied(device: device)
        case EINVAL, ENOTTY:
            opening ? .unsupported(device: device) : .failed(device: device, detail: "the camera refused \(step)")
        case 0: .failed(device: device, detail: "libzbar failed while \(step)")
        default: .failed(device: device, detail: "\(String(cString: strerror(code)).lowercased()) while \(step)")
        }
    }
}
