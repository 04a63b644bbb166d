#ifndef CKioskPNG_SHIM_H
#define CKioskPNG_SHIM_H
#include <png.h>

#endif
