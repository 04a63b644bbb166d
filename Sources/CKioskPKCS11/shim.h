#ifndef CKIOSKPKCS11_SHIM_H
#define CKIOSKPKCS11_SHIM_H

/* The PKCS #11 v2.40 types, constants and function list, from p11-kit's header (Debian's libp11-kit-dev: a drop-in
   form of the OASIS PKCS #11 header, free to copy with its notice kept). Only the header is used: p11-kit is not
   linked, and neither is any PKCS #11 module. The kiosk loads the module it is configured with (`dlopen`: SoftHSM2,
   tpm2-pkcs11, OpenSC) and calls it through the table of functions the module's `C_GetFunctionList` returns. */
#include <p11-kit-1/p11-kit/pkcs11.h>
#include <dlfcn.h>
#include <string.h>

typedef struct {
    void *library;
    CK_FUNCTION_LIST_PTR functions;
} kiosk_pkcs11_library;

/* Loads the module at `path` and asks it for its table of functions. Returns 0; -1 with nothing loaded when the
   library cannot be loaded or has no `C_GetFunctionList` (`kiosk_pkcs11_load_error` says why); or the CK_RV of a
   failed `C_GetFunctionList`, with nothing loaded. */
static inline long kiosk_pkcs11_load(kiosk_pkcs11_library *lib, const char *path) {
    memset(lib, 0, sizeof *lib);
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!library) return -1;
    CK_C_GetFunctionList get_function_list = NULL;
    *(void **)(&get_function_list) = dlsym(library, "C_GetFunctionList");
    if (!get_function_list) {
        dlclose(library);
        return -1;
    }
    CK_FUNCTION_LIST_PTR functions = NULL;
    CK_RV rv = get_function_list(&functions);
    if (rv != CKR_OK || !functions) {
        dlclose(library);
        return rv != CKR_OK ? (long)rv : -1;
    }
    lib->library = library;
    lib->functions = functions;
    return 0;
}

/* Why the last load failed (dlopen's or dlsym's message), or NULL. */
static inline const char *kiosk_pkcs11_load_error(void) { return dlerror(); }

/* Unloads the module (after `C_Finalize`). */
static inline void kiosk_pkcs11_unload(kiosk_pkcs11_library *lib) {
    if (lib->library) dlclose(lib->library);
    memset(lib, 0, sizeof *lib);
}

/* `C_Initialize`'s arguments: the module may use the operating system's locks (the kiosk calls it from more than one
   thread) and may create threads of its own. */
static inline CK_C_INITIALIZE_ARGS kiosk_pkcs11_initialize_arguments(void) {
    CK_C_INITIALIZE_ARGS arguments;
    memset(&arguments, 0, sizeof arguments);
    arguments.flags = CKF_OS_LOCKING_OK;
    return arguments;
}

#endif
