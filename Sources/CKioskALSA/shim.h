#ifndef CKIOSKALSA_SHIM_H
#define CKIOSKALSA_SHIM_H

#include <alsa/asoundlib.h>
#include <dlfcn.h>
#include <string.h>

/* alsa-lib is not linked: the kiosk loads it (`dlopen`) when it first speaks and unloads it when the visitor who asked
   has left, so an idle kiosk holds neither the library nor its cached configuration. These are the functions the
   kiosk calls, looked up by name in the loaded library. */
typedef struct {
    void *library;
    int (*pcm_open)(snd_pcm_t **pcm, const char *name, snd_pcm_stream_t stream, int mode);
    int (*pcm_set_params)(snd_pcm_t *pcm, snd_pcm_format_t format, snd_pcm_access_t access, unsigned int channels,
                          unsigned int rate, int soft_resample, unsigned int latency);
    snd_pcm_sframes_t (*pcm_writei)(snd_pcm_t *pcm, const void *buffer, snd_pcm_uframes_t size);
    int (*pcm_recover)(snd_pcm_t *pcm, int err, int silent);
    int (*pcm_drop)(snd_pcm_t *pcm);
    int (*pcm_drain)(snd_pcm_t *pcm);
    int (*pcm_close)(snd_pcm_t *pcm);
    const char *(*strerror)(int errnum);
    int (*lib_error_set_handler)(snd_lib_error_handler_t handler);
    int (*config_update_free_global)(void);
} kiosk_alsa_library;

/* alsa-lib prints every failure it meets while opening a device to standard error ("ALSA lib confmisc.c:855:
   cannot find card '0'", eight lines for a missing card), which would land in the journal on every attempt of a
   board without sound. The handler that receives them is variadic, which Swift cannot define: this one drops them.
   The kiosk reports the returned error code itself (KioskSpeech's ALSAError), once. */
static inline void kiosk_alsa_ignore_error(const char *file, int line, const char *function, int error, const char *format,
                                           ...) {
    (void)file; (void)line; (void)function; (void)error; (void)format;
}

/* Loads libasound.so.2 and looks up every function above, then silences the library's messages. Returns 0, or -1
   with nothing loaded (`kiosk_alsa_load_error` says why). */
static inline int kiosk_alsa_load(kiosk_alsa_library *lib) {
    memset(lib, 0, sizeof *lib);
    lib->library = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib->library) return -1;
#define KIOSK_ALSA_SYMBOL(field, name)                                                                                 \
    if (!(*(void **)(&lib->field) = dlsym(lib->library, name))) {                                                      \
        dlclose(lib->library);                                                                                         \
        memset(lib, 0, sizeof *lib);                                                                                   \
        return -1;                                                                                                     \
    }
    KIOSK_ALSA_SYMBOL(pcm_open, "snd_pcm_open")
    KIOSK_ALSA_SYMBOL(pcm_set_params, "snd_pcm_set_params")
    KIOSK_ALSA_SYMBOL(pcm_writei, "snd_pcm_writei")
    KIOSK_ALSA_SYMBOL(pcm_recover, "snd_pcm_recover")
    KIOSK_ALSA_SYMBOL(pcm_drop, "snd_pcm_drop")
    KIOSK_ALSA_SYMBOL(pcm_drain, "snd_pcm_drain")
    KIOSK_ALSA_SYMBOL(pcm_close, "snd_pcm_close")
    KIOSK_ALSA_SYMBOL(strerror, "snd_strerror")
    KIOSK_ALSA_SYMBOL(lib_error_set_handler, "snd_lib_error_set_handler")
    KIOSK_ALSA_SYMBOL(config_update_free_global, "snd_config_update_free_global")
#undef KIOSK_ALSA_SYMBOL
    lib->lib_error_set_handler(kiosk_alsa_ignore_error);
    return 0;
}

/* Why the last load failed (dlopen's or dlsym's message), or NULL. */
static inline const char *kiosk_alsa_load_error(void) { return dlerror(); }

/* Frees alsa-lib's cached configuration and unloads the library (every device closed first). */
static inline void kiosk_alsa_unload(kiosk_alsa_library *lib) {
    if (!lib->library) return;
    lib->lib_error_set_handler(NULL);
    lib->config_update_free_global();
    dlclose(lib->library);
    memset(lib, 0, sizeof *lib);
}

#endif
