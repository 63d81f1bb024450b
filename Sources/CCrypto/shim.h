#include <openssl/crypto.h>
#include <openssl/evp.h>

/// OpenSSL without its exit-time cleanup (OPENSSL_INIT_NO_ATEXIT), for a process whose other
/// threads may still be inside libcrypto — a transfer's TLS state, a digest — when it exits:
/// the atexit handler frees what they use and they crash. Only the first initialisation decides,
/// so call this before anything else uses OpenSSL (libcurl included); the system reclaims the
/// memory at exit anyway.
static inline int hotword_openssl_init_without_exit_cleanup(void) {
    return OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, NULL);
}
