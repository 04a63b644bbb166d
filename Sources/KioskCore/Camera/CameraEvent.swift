/// What a camera reports: a QR code that came into view, or a change of its state.
public enum CameraEvent: Sendable, Equatable {
    /// A code came into view (once while it stays there). The text is the code's content: never log it.
    case code(String)
    case state(CameraState)
}

/// The state of the camera, for the status display and the logs.
public enum CameraState: Sendable, Equatable {
    /// Opening the device.
    case starting
    /// Frames are arriving.
    case running
    /// The camera cannot be used; the kiosk retries with a growing delay.
    case unavailable(CameraUnavailableReason)
}

/// Why the camera cannot be used, each with a message for staff and the fix to try. Texts name the device path
/// only, never image content.
public enum CameraUnavailableReason: Error, Sendable, Equatable {
    /// No device at the path (`ENOENT`, `ENODEV` on open).
    case noCamera(device: String)
    /// The camera went away while streaming (`ENODEV`, `EIO` from a frame).
    case unplugged(device: String)
    /// Another program is using the camera (`EBUSY`).
    case busy(device: String)
    /// The kiosk's user may not open the device (`EACCES`, `EPERM`).
    case permissionDenied(device: String)
    /// The device is not a camera that delivers greyscale frames at the requested size.
    case unsupported(device: String)
    /// Any other failure, with libzbar's or the system's short description.
    case failed(device: String, detail: String)

    /// A short machine-readable name (`no-camera`, `unplugged`, `busy`, `permission-denied`, `unsupported`,
    /// `failed`).
    public var name: String {
        switch self {
        case .noCamera: "no-camera"
        case .unplugged: "unplugged"
        case .busy: "busy"
        case .permissionDenied: "permission-denied"
        case .unsupported: "unsupported"
        case .failed: "failed"
        }
    }

    /// What is wrong, in one sentence.
    public var message: String {
        switch self {
        case .noCamera(let device): "No camera at \(device)."
        case .unplugged(let device): "The camera at \(device) stopped delivering frames (unplugged?)."
        case .busy(let device): "The camera at \(device) is in use by another program."
        case .permissionDenied(let device): "No permission to open the camera at \(device)."
        case .unsupported(let device): "The device \(device) is not a camera the kiosk can use (no greyscale frames)."
        case .failed(let device, let detail): "The camera at \(device) failed: \(detail)."
        }
    }

    /// What staff should try.
    public var fix: String {
        switch self {
        case .noCamera: "Plug in the USB camera, or set the right device (see `ls /dev/video*`)."
        case .unplugged: "Check the camera's USB cable; the kiosk reconnects by itself."
        case .busy: "Close the other program using the camera (see `fuser /dev/video*`)."
        case .permissionDenied: "Add the kiosk's user to the 'video' group (or install the kiosk's udev rule)."
        case .unsupported: "Use a USB (UVC) camera; on a Pi CSI camera device, pick the camera's capture node."
        case .failed: "Unplug and replug the camera; if it persists, try another USB port or camera."
        }
    }
}
