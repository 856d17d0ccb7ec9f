// The system's OpenSSL 3 (Debian: libssl-dev), plus static inline wrappers for what
// Swift cannot import: function-like macros and the SSL_OP_* constants built with them.
#ifndef ROSHAMBO_COPENSSL_SHIM_H
#define ROSHAMBO_COPENSSL_SHIM_H

#if !__has_include(<openssl/ssl.h>)
#error "OpenSSL 3 headers not found. Install them: apt-get install libssl-dev pkg-config (Debian/Ubuntu)."
#endif

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#if OPENSSL_VERSION_MAJOR < 3
#error "Roshambo needs OpenSSL 3 or later (found an older libssl-dev)."
#endif

static inline int shim_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int version) {
  return (int)SSL_CTX_set_min_proto_version(ctx, version);
}
static inline int shim_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int version) {
  return (int)SSL_CTX_set_max_proto_version(ctx, version);
}
static inline long shim_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) {
  return SSL_CTX_set_mode(ctx, mode);
}
static inline int shim_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) {
  return (int)SSL_CTX_set1_groups_list(ctx, list);
}
static inline long shim_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long mode) {
  return SSL_CTX_set_session_cache_mode(ctx, mode);
}
static inline int shim_SSL_set_tlsext_host_name(SSL *ssl, const char *name) {
  return (int)SSL_set_tlsext_host_name(ssl, name);
}
static inline int shim_BIO_should_retry(BIO *bio) {
  return BIO_should_retry(bio);
}
static inline long shim_BIO_get_mem_data(BIO *bio, char **data) {
  return BIO_get_mem_data(bio, data);
}
static inline EVP_PKEY *shim_EVP_EC_gen(const char *curve) {
  return EVP_EC_gen(curve);
}
static inline void shim_OPENSSL_free(void *pointer) {
  OPENSSL_free(pointer);
}
static inline void shim_X509V3_set_ctx_nodb(X509V3_CTX *ctx) {
  X509V3_set_ctx_nodb(ctx);
}

static inline uint64_t shim_SSL_OP_NO_COMPRESSION(void) { return SSL_OP_NO_COMPRESSION; }
static inline uint64_t shim_SSL_OP_NO_RENEGOTIATION(void) { return SSL_OP_NO_RENEGOTIATION; }
static inline uint64_t shim_SSL_OP_NO_TICKET(void) { return SSL_OP_NO_TICKET; }
static inline uint64_t shim_SSL_OP_CIPHER_SERVER_PREFERENCE(void) {
  return SSL_OP_CIPHER_SERVER_PREFERENCE;
}
static inline uint64_t shim_SSL_OP_IGNORE_UNEXPECTED_EOF(void) {
  return SSL_OP_IGNORE_UNEXPECTED_EOF;
}

#endif
