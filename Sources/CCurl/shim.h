#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic: one typed wrapper per argument kind. */
static inline CURLcode CCurl_easy_setopt_long(CURL *h, CURLoption o, long v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode CCurl_easy_setopt_string(CURL *h, CURLoption o, const char *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode CCurl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode CCurl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode CCurl_easy_setopt_blob(CURL *h, CURLoption o, struct curl_blob *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode CCurl_easy_setopt_off_t(CURL *h, CURLoption o, curl_off_t v) {
  return curl_easy_setopt(h, o, v);
}
typedef size_t (*CCurl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode CCurl_easy_setopt_data_callback(CURL *h, CURLoption o, CCurl_data_callback v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode CCurl_easy_getinfo_long(CURL *h, CURLINFO i, long *v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode CCurl_easy_getinfo_off_t(CURL *h, CURLINFO i, curl_off_t *v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode CCurl_easy_getinfo_string(CURL *h, CURLINFO i, char **v) {
  return curl_easy_getinfo(h, i, v);
}

#endif
