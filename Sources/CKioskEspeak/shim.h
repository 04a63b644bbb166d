#ifndef CKIOSKESPEAK_SHIM_H
#define CKIOSKESPEAK_SHIM_H

/* espeak-ng's C API (1.51 in Debian 12): espeak_ng.h brings speak_lib.h (espeak_Synth, espeak_SetSynthCallback,
   espeakCHARS_UTF8) with it. Nothing here needs a wrapper: the calls the kiosk makes are neither variadic nor
   macros. */
#include <espeak-ng/espeak_ng.h>

#endif
