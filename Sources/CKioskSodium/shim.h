#ifndef CKIOSK_SODIUM_SHIM_H
#define CKIOSK_SODIUM_SHIM_H

// libsodium's one header. No wrappers: every function the kiosk calls (`sodium_init`, `crypto_secretbox_easy`,
// `crypto_secretbox_open_easy`, `sodium_memzero`) is a plain C function Swift imports as it is.
#include <sodium.h>

#endif
