#include "CKioskZBarBaseline.h"
#include <string.h>
#include <zbar.h>

void *ckiosk_baseline_scanner_create(void) {
    zbar_image_scanner_t *scanner = zbar_image_scanner_create();
    if (!scanner) return NULL;
    zbar_image_scanner_set_config(scanner, ZBAR_NONE, ZBAR_CFG_ENABLE, 0);
    zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_ENABLE, 1);
    zbar_image_scanner_set_config(scanner, ZBAR_QRCODE, ZBAR_CFG_BINARY, 1);
    return scanner;
}

void ckiosk_baseline_scanner_destroy(void *scanner) { zbar_image_scanner_destroy(scanner); }

long ckiosk_baseline_scan(void *scanner, const unsigned char *pixels, unsigned width, unsigned height) {
    zbar_image_t *image = zbar_image_create();
    if (!image) return -1;
    zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
    zbar_image_set_size(image, width, height);
    zbar_image_set_data(image, pixels, (unsigned long)width * height, NULL);
    long total = -1;
    if (zbar_scan_image(scanner, image) >= 0) {
        total = 0;
        for (const zbar_symbol_t *symbol = zbar_image_first_symbol(image); symbol; symbol = zbar_symbol_next(symbol))
            total += (long)zbar_symbol_get_data_length(symbol);
    }
    zbar_image_set_data(image, NULL, 0, NULL);
    zbar_image_destroy(image);
    return total;
}

long ckiosk_baseline_scan_codes(void *scanner, const unsigned char *pixels, unsigned width, unsigned height, char *out,
                                size_t capacity) {
    zbar_image_t *image = zbar_image_create();
    if (!image) return -1;
    zbar_image_set_format(image, zbar_fourcc('Y', '8', '0', '0'));
    zbar_image_set_size(image, width, height);
    zbar_image_set_data(image, pixels, (unsigned long)width * height, NULL);
    long found = -1;
    size_t used = 0;
    if (zbar_scan_image(scanner, image) >= 0) {
        found = 0;
        for (const zbar_symbol_t *symbol = zbar_image_first_symbol(image); symbol; symbol = zbar_symbol_next(symbol)) {
            size_t length = zbar_symbol_get_data_length(symbol);
            if (used + length + 1 <= capacity) {
                memcpy(out + used, zbar_symbol_get_data(symbol), length);
                out[used + length] = 0;
                used += length + 1;
            }
            found++;
        }
    }
    zbar_image_set_data(image, NULL, 0, NULL);
    zbar_image_destroy(image);
    return found;
}
