#ifndef CKIOSKESPEAK_SHIM_H
#define CKIOSKESPEAK_SHIM_H

/* espeak-ng's C API (1.51 in Debian 12): espeak_ng.h brings speak_lib.h (espeak_Synth, espeak_SetSynthCallback,
   espeakCHARS_UTF8) with it. */
#include <espeak-ng/espeak_ng.h>
#include <dlfcn.h>
#include <malloc.h>
#include <string.h>

/* espeak-ng is not linked: the kiosk loads it (`dlopen`) when it first speaks and unloads it when the visitor who
   asked has left, so an idle kiosk holds neither the library, the sound libraries it brings (libpcaudio with
   PulseAudio's and their codecs) nor its voice data. These are the functions the kiosk calls, looked up by name in
   the loaded library; none is variadic or a macro. */
typedef struct {
    void *library;
    /* The library was in the process before this load (linked into the program, or loaded by another part of it):
       it is never terminated nor unloaded from here. */
    int shared;
    void (*initialize_path)(const char *path);
    espeak_ng_STATUS (*initialize)(espeak_ng_ERROR_CONTEXT *context);
    espeak_ng_STATUS (*initialize_output)(espeak_ng_OUTPUT_MODE output_mode, int buffer_length, const char *device);
    void (*set_synth_callback)(t_espeak_callback *SynthCallback);
    int (*get_sample_rate)(void);
    espeak_ng_STATUS (*set_voice_by_name)(const char *name);
    espeak_ng_STATUS (*set_parameter)(espeak_PARAMETER parameter, int value, int relative);
    espeak_ERROR (*synth)(const void *text, size_t size, unsigned int position, espeak_POSITION_TYPE position_type,
                          unsigned int end_position, unsigned int flags, unsigned int *unique_identifier,
                          void *user_data);
    espeak_ng_STATUS (*synchronize)(void);
    void (*get_status_code_message)(espeak_ng_STATUS status, char *buffer, size_t length);
    espeak_ng_STATUS (*terminate)(void);
} kiosk_espeak_library;

/* Loads libespeak-ng.so.1 and looks up every function above. Returns 0, or -1 with nothing loaded
   (`kiosk_espeak_load_error` says why). */
static inline int kiosk_espeak_load(kiosk_espeak_library *lib) {
    memset(lib, 0, sizeof *lib);
    void *already = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (already) dlclose(already);
    lib->library = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib->library) return -1;
#define KIOSK_ESPEAK_SYMBOL(field, name)                                                                               \
    if (!(*(void **)(&lib->field) = dlsym(lib->library, name))) {                                                      \
        dlclose(lib->library);                                                                                         \
        memset(lib, 0, sizeof *lib);                                                                                   \
        return -1;                                                                                                     \
    }
    KIOSK_ESPEAK_SYMBOL(initialize_path, "espeak_ng_InitializePath")
    KIOSK_ESPEAK_SYMBOL(initialize, "espeak_ng_Initialize")
    KIOSK_ESPEAK_SYMBOL(initialize_output, "espeak_ng_InitializeOutput")
    KIOSK_ESPEAK_SYMBOL(set_synth_callback, "espeak_SetSynthCallback")
    KIOSK_ESPEAK_SYMBOL(get_sample_rate, "espeak_ng_GetSampleRate")
    KIOSK_ESPEAK_SYMBOL(set_voice_by_name, "espeak_ng_SetVoiceByName")
    KIOSK_ESPEAK_SYMBOL(set_parameter, "espeak_ng_SetParameter")
    KIOSK_ESPEAK_SYMBOL(synth, "espeak_Synth")
    KIOSK_ESPEAK_SYMBOL(synchronize, "espeak_ng_Synchronize")
    KIOSK_ESPEAK_SYMBOL(get_status_code_message, "espeak_ng_GetStatusCodeMessage")
    KIOSK_ESPEAK_SYMBOL(terminate, "espeak_ng_Terminate")
#undef KIOSK_ESPEAK_SYMBOL
    lib->shared = already != NULL;
    return 0;
}

/* Why the last load failed (dlopen's or dlsym's message), or NULL. */
static inline const char *kiosk_espeak_load_error(void) { return dlerror(); }

/* Unloads the library (after `terminate`, when it was initialized). Returns 0 when it is gone from the process, -1
   when it stayed (another part of the process holds it too, or it cannot be unloaded). */
static inline int kiosk_espeak_unload(kiosk_espeak_library *lib) {
    if (!lib->library) return 0;
    dlclose(lib->library);
    memset(lib, 0, sizeof *lib);
    void *still = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (!still) return 0;
    dlclose(still);
    return -1;
}

#endif
