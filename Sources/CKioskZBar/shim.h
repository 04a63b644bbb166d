#ifndef CKioskZBar_SHIM_H
#define CKioskZBar_SHIM_H
#include <zbar.h>

/// `zbar_fourcc` is a function-like macro, which Swift does not import: the 8-bit greyscale format code ("Y800").
static inline unsigned long ckiosk_zbar_fourcc_y800(void) {
    return zbar_fourcc('Y', '8', '0', '0');
}

/// The V4L2 8-bit greyscale format code ("GREY"), which `zbar_video_init` needs before streaming.
static inline unsigned long ckiosk_zbar_fourcc_grey(void) {
    return zbar_fourcc('G', 'R', 'E', 'Y');
}

#endif
