#ifndef CKIOSKALSA_SHIM_H
#define CKIOSKALSA_SHIM_H

#include <alsa/asoundlib.h>

/* alsa-lib prints every failure it meets while opening a device to standard error ("ALSA lib confmisc.c:855:
   cannot find card '0'", eight lines for a missing card), which would land in the journal on every attempt of a
   board without sound. The handler that receives them is variadic, which Swift cannot define: this one drops them.
   The kiosk reports the returned error code itself (KioskSpeech's ALSAError), once. */
static inline void kiosk_alsa_ignore_error(const char *file, int line, const char *function, int error, const char *format,
                                           ...) {
    (void)file; (void)line; (void)function; (void)error; (void)format;
}

static inline int kiosk_alsa_silence_library_errors(void) {
    return snd_lib_error_set_handler(kiosk_alsa_ignore_error);
}

#endif
