#ifndef CKioskNFC_SHIM_H
#define CKioskNFC_SHIM_H
#include <nfc/nfc.h>

#endif
