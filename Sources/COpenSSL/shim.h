#ifndef COPENSSL_SHIM_H
#define COPENSSL_SHIM_H
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/ec.h>
#include <openssl/decoder.h>
#include <openssl/encoder.h>

/* Function-like macros Swift cannot import. */
static inline long COpenSSL_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline void COpenSSL_free(void *p) { OPENSSL_free(p); }

/* Key selections are composite macros. */
static inline int COpenSSL_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int COpenSSL_selection_keypair(void) { return EVP_PKEY_KEYPAIR; }

#endif
