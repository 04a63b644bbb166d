// A stand-in for libv4l2 for tests on machines without a camera (the kernel here has no V4L2 drivers). Loaded with
// LD_PRELOAD, it replaces the v4l2_open/ioctl/mmap/munmap/close functions that libzbar takes from libv4l2, and serves
// one fake capture device: GREY (8-bit grey) 640 x 480 frames read from binary PGM (P5) files.
//
// Environment:
//   KIOSK_V4L2_SHIM_DEVICE   the device path the shim answers for (default /dev/video-shim0); other paths are passed
//                            to the real libv4l2
//   KIOSK_V4L2_SHIM_FRAMES   PGM files separated by ':', served in order, then again from the start
//   KIOSK_V4L2_SHIM_FAULT    "nodevice" (open fails with ENOENT), "permission" (EACCES), "busy" (REQBUFS fails with
//                            EBUSY, as when another program streams), "unplug" (DQBUF fails with ENODEV after
//                            KIOSK_V4L2_SHIM_UNPLUG_AFTER frames, default 3, and later opens fail with ENOENT)
//   KIOSK_V4L2_SHIM_FRAME_US microseconds between frames (default 2000)
//   KIOSK_V4L2_SHIM_LOG      a file that gets one line per open ("open"), per served frame ("frame") and per
//                            ioctl the shim does not know ("unknown-ioctl <hex>")
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/videodev2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define SHIM_WIDTH 640
#define SHIM_HEIGHT 480
#define SHIM_SIZE (SHIM_WIDTH * SHIM_HEIGHT)
#define SHIM_BUFFERS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int device_fd = -1;
static int streaming = 0;
static unsigned buffer_count = 0;
static void *buffers[SHIM_BUFFERS];
static int queued[SHIM_BUFFERS];
static unsigned long frames_served = 0;
static unsigned long opens = 0;
static int unplugged = 0;

static const char *env(const char *name, const char *fallback) {
    const char *value = getenv(name);
    return value && *value ? value : fallback;
}

static void log_line(const char *format, ...) {
    const char *path = getenv("KIOSK_V4L2_SHIM_LOG");
    if (!path) return;
    FILE *file = fopen(path, "a");
    if (!file) return;
    va_list args;
    va_start(args, format);
    vfprintf(file, format, args);
    va_end(args);
    fputc('\n', file);
    fclose(file);
}

static int is_fault(const char *name) { return strcmp(env("KIOSK_V4L2_SHIM_FAULT", ""), name) == 0; }

// Reads the n-th file of KIOSK_V4L2_SHIM_FRAMES into `out` (SHIM_SIZE bytes); a missing list gives a mid-grey frame,
// an unreadable or wrongly sized file a black one.
static void load_frame(unsigned long n, uint8_t *out) {
    memset(out, 128, SHIM_SIZE);
    const char *list = getenv("KIOSK_V4L2_SHIM_FRAMES");
    if (!list || !*list) return;
    unsigned long count = 1;
    for (const char *p = list; *p; p++) count += *p == ':';
    unsigned long wanted = n % count;
    const char *start = list;
    for (unsigned long i = 0; i < wanted; i++) start = strchr(start, ':') + 1;
    const char *end = strchr(start, ':');
    size_t length = end ? (size_t)(end - start) : strlen(start);
    char path[4096];
    if (length >= sizeof path) return;
    memcpy(path, start, length);
    path[length] = 0;
    memset(out, 0, SHIM_SIZE);
    FILE *file = fopen(path, "rb");
    if (!file) return;
    int width = 0, height = 0, maxval = 0;
    if (fscanf(file, "P5 %d %d %d", &width, &height, &maxval) == 3 && width == SHIM_WIDTH && height == SHIM_HEIGHT &&
        maxval == 255 && fgetc(file) != EOF) {
        if (fread(out, 1, SHIM_SIZE, file) != SHIM_SIZE) memset(out, 0, SHIM_SIZE);
    }
    fclose(file);
}

static void fill_format(struct v4l2_format *format) {
    memset(&format->fmt.pix, 0, sizeof format->fmt.pix);
    format->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    format->fmt.pix.width = SHIM_WIDTH;
    format->fmt.pix.height = SHIM_HEIGHT;
    format->fmt.pix.pixelformat = V4L2_PIX_FMT_GREY;
    format->fmt.pix.field = V4L2_FIELD_NONE;
    format->fmt.pix.bytesperline = SHIM_WIDTH;
    format->fmt.pix.sizeimage = SHIM_SIZE;
    format->fmt.pix.colorspace = V4L2_COLORSPACE_RAW;
}

int v4l2_open(const char *path, int flags, ...) {
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list args;
        va_start(args, flags);
        mode = (mode_t)va_arg(args, int);
        va_end(args);
    }
    if (strcmp(path, env("KIOSK_V4L2_SHIM_DEVICE", "/dev/video-shim0")) != 0) {
        int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "v4l2_open");
        if (real) return real(path, flags, mode);
        return open(path, flags, mode);
    }
    pthread_mutex_lock(&lock);
    opens++;
    log_line("open");
    int failure = 0;
    if (is_fault("nodevice") || unplugged) failure = ENOENT;
    else if (is_fault("permission")) failure = EACCES;
    else if (device_fd >= 0) failure = EBUSY;
    if (failure) {
        pthread_mutex_unlock(&lock);
        errno = failure;
        return -1;
    }
    device_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    streaming = 0;
    buffer_count = 0;
    int fd = device_fd;
    pthread_mutex_unlock(&lock);
    return fd;
}

int v4l2_close(int fd) {
    pthread_mutex_lock(&lock);
    if (fd == device_fd && fd >= 0) {
        for (unsigned i = 0; i < buffer_count; i++) {
            if (buffers[i]) munmap(buffers[i], SHIM_SIZE);
            buffers[i] = NULL;
        }
        buffer_count = 0;
        streaming = 0;
        device_fd = -1;
    }
    pthread_mutex_unlock(&lock);
    return close(fd);
}

static int fail(int code) {
    errno = code;
    return -1;
}

// Waits for the next frame time, outside the lock.
static void frame_pause(void) {
    long micros = atol(env("KIOSK_V4L2_SHIM_FRAME_US", "2000"));
    if (micros <= 0) return;
    struct timespec pause = {micros / 1000000, (micros % 1000000) * 1000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {}
}

static int device_ioctl(unsigned long request, void *arg) {
    switch (request) {
    case VIDIOC_QUERYCAP: {
        struct v4l2_capability *cap = arg;
        memset(cap, 0, sizeof *cap);
        strcpy((char *)cap->driver, "kiosk-shim");
        strcpy((char *)cap->card, "Kiosk test camera");
        strcpy((char *)cap->bus_info, "platform:kiosk-shim");
        cap->version = 0x00060100;
        cap->device_caps = V4L2_CAP_VIDEO_CAPTURE | V4L2_CAP_STREAMING;
        cap->capabilities = cap->device_caps | V4L2_CAP_DEVICE_CAPS;
        return 0;
    }
    case VIDIOC_ENUM_FMT: {
        struct v4l2_fmtdesc *desc = arg;
        if (desc->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || desc->index != 0) return fail(EINVAL);
        desc->flags = 0;
        strcpy((char *)desc->description, "8-bit Greyscale");
        desc->pixelformat = V4L2_PIX_FMT_GREY;
        return 0;
    }
    case VIDIOC_ENUM_FRAMESIZES: {
        struct v4l2_frmsizeenum *size = arg;
        if (size->index != 0 || size->pixel_format != V4L2_PIX_FMT_GREY) return fail(EINVAL);
        size->type = V4L2_FRMSIZE_TYPE_DISCRETE;
        size->discrete.width = SHIM_WIDTH;
        size->discrete.height = SHIM_HEIGHT;
        return 0;
    }
    case VIDIOC_G_FMT:
    case VIDIOC_S_FMT:
    case VIDIOC_TRY_FMT: {
        struct v4l2_format *format = arg;
        if (format->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        if (request == VIDIOC_S_FMT && streaming) return fail(EBUSY);
        fill_format(format);  // the only format there is, whatever was asked
        return 0;
    }
    case VIDIOC_REQBUFS: {
        struct v4l2_requestbuffers *request_buffers = arg;
        if (is_fault("busy")) return fail(EBUSY);
        if (request_buffers->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || request_buffers->memory != V4L2_MEMORY_MMAP)
            return fail(EINVAL);
        if (streaming) return fail(EBUSY);
        for (unsigned i = 0; i < buffer_count; i++) {
            if (buffers[i]) munmap(buffers[i], SHIM_SIZE);
            buffers[i] = NULL;
        }
        unsigned count = request_buffers->count > SHIM_BUFFERS ? SHIM_BUFFERS : request_buffers->count;
        for (unsigned i = 0; i < count; i++) {
            buffers[i] = mmap(NULL, SHIM_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (buffers[i] == MAP_FAILED) {
                buffers[i] = NULL;
                return fail(ENOMEM);
            }
            queued[i] = 0;
        }
        buffer_count = count;
        request_buffers->count = count;
        request_buffers->capabilities = V4L2_BUF_CAP_SUPPORTS_MMAP;
        return 0;
    }
    case VIDIOC_QUERYBUF:
    case VIDIOC_QBUF: {
        struct v4l2_buffer *buffer = arg;
        if (buffer->type != V4L2_BUF_TYPE_VIDEO_CAPTURE || buffer->index >= buffer_count) return fail(EINVAL);
        if (request == VIDIOC_QBUF) queued[buffer->index] = 1;
        buffer->memory = V4L2_MEMORY_MMAP;
        buffer->length = SHIM_SIZE;
        buffer->m.offset = buffer->index * (unsigned)sysconf(_SC_PAGESIZE) * 1024u;
        buffer->flags = queued[buffer->index] ? V4L2_BUF_FLAG_QUEUED : 0;
        return 0;
    }
    case VIDIOC_STREAMON:
    case VIDIOC_STREAMOFF:
        if (*(int *)arg != V4L2_BUF_TYPE_VIDEO_CAPTURE) return fail(EINVAL);
        streaming = request == VIDIOC_STREAMON;
        if (!streaming)
            for (unsigned i = 0; i < buffer_count; i++) queued[i] = 0;
        return 0;
    case VIDIOC_G_INPUT:
        *(int *)arg = 0;
        return 0;
    case VIDIOC_S_INPUT:
        return *(int *)arg == 0 ? 0 : fail(EINVAL);
    case VIDIOC_ENUMINPUT: {
        struct v4l2_input *input = arg;
        if (input->index != 0) return fail(EINVAL);
        memset(input, 0, sizeof *input);
        strcpy((char *)input->name, "Camera");
        input->type = V4L2_INPUT_TYPE_CAMERA;
        return 0;
    }
    case VIDIOC_G_PARM:
    case VIDIOC_S_PARM:
    case VIDIOC_QUERYCTRL:
    case VIDIOC_QUERY_EXT_CTRL:
    case VIDIOC_QUERYMENU:
    case VIDIOC_G_CTRL:
    case VIDIOC_S_CTRL:
    case VIDIOC_CROPCAP:
    case VIDIOC_G_CROP:
    case VIDIOC_S_CROP:
    case VIDIOC_G_SELECTION:
    case VIDIOC_S_SELECTION:
    case VIDIOC_ENUM_FRAMEINTERVALS:
    case VIDIOC_G_STD:
    case VIDIOC_S_STD:
    case VIDIOC_ENUMSTD:
    case VIDIOC_G_PRIORITY:
    case VIDIOC_S_PRIORITY:
        return fail(EINVAL);  // not supported, as on many UVC cameras
    default:
        log_line("unknown-ioctl %lx", request);
        return fail(ENOTTY);
    }
}

int v4l2_ioctl(int fd, unsigned long request, ...) {
    va_list args;
    va_start(args, request);
    void *arg = va_arg(args, void *);
    va_end(args);
    pthread_mutex_lock(&lock);
    if (fd < 0 || fd != device_fd) {
        pthread_mutex_unlock(&lock);
        int (*real)(int, unsigned long, ...) = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "v4l2_ioctl");
        return real ? real(fd, request, arg) : fail(ENOTTY);
    }
    if (request != VIDIOC_DQBUF) {
        int result = device_ioctl(request, arg);
        int saved = errno;
        pthread_mutex_unlock(&lock);
        errno = saved;
        return result;
    }
    // DQBUF: the oldest queued buffer gets the next frame, after the frame interval.
    struct v4l2_buffer *buffer = arg;
    if (!streaming || buffer->type != V4L2_BUF_TYPE_VIDEO_CAPTURE) {
        pthread_mutex_unlock(&lock);
        return fail(EINVAL);
    }
    if (unplugged ||
        (is_fault("unplug") && frames_served >= (unsigned long)atol(env("KIOSK_V4L2_SHIM_UNPLUG_AFTER", "3")))) {
        unplugged = 1;
        pthread_mutex_unlock(&lock);
        return fail(ENODEV);
    }
    int index = -1;
    for (unsigned i = 0; i < buffer_count; i++)
        if (queued[i]) {
            index = (int)i;
            break;
        }
    if (index < 0) {
        pthread_mutex_unlock(&lock);
        return fail(EINVAL);
    }
    queued[index] = 0;
    unsigned long n = frames_served++;
    uint8_t *target = buffers[index];
    pthread_mutex_unlock(&lock);
    frame_pause();
    load_frame(n, target);
    log_line("frame");
    memset(buffer, 0, sizeof *buffer);
    buffer->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
    buffer->memory = V4L2_MEMORY_MMAP;
    buffer->index = (unsigned)index;
    buffer->bytesused = SHIM_SIZE;
    buffer->length = SHIM_SIZE;
    buffer->sequence = (unsigned)n;
    buffer->field = V4L2_FIELD_NONE;
    return 0;
}

void *v4l2_mmap(void *start, size_t length, int prot, int flags, int fd, int64_t offset) {
    pthread_mutex_lock(&lock);
    if (fd >= 0 && fd == device_fd) {
        unsigned index = (unsigned)(offset / ((int64_t)sysconf(_SC_PAGESIZE) * 1024));
        void *buffer = index < buffer_count && length <= SHIM_SIZE ? buffers[index] : NULL;
        pthread_mutex_unlock(&lock);
        if (!buffer) {
            errno = EINVAL;
            return MAP_FAILED;
        }
        return buffer;  // the shim keeps the memory; v4l2_munmap of it does nothing
    }
    pthread_mutex_unlock(&lock);
    void *(*real)(void *, size_t, int, int, int, int64_t) =
        (void *(*)(void *, size_t, int, int, int, int64_t))dlsym(RTLD_NEXT, "v4l2_mmap");
    return real ? real(start, length, prot, flags, fd, offset) : mmap(start, length, prot, flags, fd, offset);
}

int v4l2_munmap(void *start, size_t length) {
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < buffer_count; i++)
        if (buffers[i] == start) {
            pthread_mutex_unlock(&lock);
            return 0;
        }
    pthread_mutex_unlock(&lock);
    int (*real)(void *, size_t) = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "v4l2_munmap");
    return real ? real(start, length) : munmap(start, length);
}
