#ifndef CKioskZBar_SHIM_H
#define CKioskZBar_SHIM_H
#include <zbar.h>

#endif
