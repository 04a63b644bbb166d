#ifndef CKioskGPIOD_SHIM_H
#define CKioskGPIOD_SHIM_H
#include <gpiod.h>

#endif
