#ifndef CKIOSKCURL_SHIM_H
#define CKIOSKCURL_SHIM_H

#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call: one typed wrapper per kind of
   argument the kiosk passes. */

static inline CURLcode kiosk_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kiosk_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kiosk_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kiosk_curl_set_size(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode kiosk_curl_set_headers(CURL *handle, struct curl_slist *headers) {
    return curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
}

typedef size_t (*kiosk_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*kiosk_curl_progress_callback)(void *context, curl_off_t downloadTotal, curl_off_t downloaded,
                                            curl_off_t uploadTotal, curl_off_t uploaded);

static inline CURLcode kiosk_curl_set_write_callback(CURL *handle, kiosk_curl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, callback);
}

static inline CURLcode kiosk_curl_set_header_callback(CURL *handle, kiosk_curl_data_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, callback);
}

static inline CURLcode kiosk_curl_set_progress_callback(CURL *handle, kiosk_curl_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline long kiosk_curl_response_code(CURL *handle) {
    long code = 0;
    if (curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code) != CURLE_OK) return 0;
    return code;
}

#endif
