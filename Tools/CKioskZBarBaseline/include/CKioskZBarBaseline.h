#ifndef CKioskZBarBaseline_H
#define CKioskZBarBaseline_H
// The benchmark's baseline: libzbar called directly from C, the minimum any wrapper has to do to scan a grey frame.
#include <stddef.h>

/// Creates a QR-only image scanner in binary mode (as the kiosk's); NULL when out of memory.
void *ckiosk_baseline_scanner_create(void);
void ckiosk_baseline_scanner_destroy(void *scanner);
/// Scans one 8-bit grey frame (Y800); returns the total data length of the QR codes found, or -1 on failure.
long ckiosk_baseline_scan(void *scanner, const unsigned char *pixels, unsigned width, unsigned height);
/// Scans one 8-bit grey frame (Y800) and copies each QR code's data into `out`, each followed by a NUL byte, as far
/// as `capacity` allows; returns the number of codes found, or -1 on failure.
long ckiosk_baseline_scan_codes(void *scanner, const unsigned char *pixels, unsigned width, unsigned height, char *out,
                                size_t capacity);

#endif
