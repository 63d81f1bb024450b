#include <curl/curl.h>

// Swift cannot call C variadic functions, so curl_easy_setopt/curl_easy_getinfo get one typed
// wrapper per argument kind the HTTP client uses.

typedef size_t (*hotword_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*hotword_curl_progress_callback)(void *context, curl_off_t download_total,
                                              curl_off_t downloaded, curl_off_t upload_total,
                                              curl_off_t uploaded);

static inline CURLcode hotword_curl_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode hotword_curl_set_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode hotword_curl_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode hotword_curl_set_data_callback(CURL *handle, CURLoption option,
                                                      hotword_curl_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode hotword_curl_set_progress_callback(CURL *handle,
                                                          hotword_curl_progress_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode hotword_curl_get_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode hotword_curl_get_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}
