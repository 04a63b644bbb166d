#ifndef CKioskQRencode_SHIM_H
#define CKioskQRencode_SHIM_H
#include <qrencode.h>

#endif
