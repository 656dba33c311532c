/*
 * COpenSSL: SHA-256 from OpenSSL's libcrypto, for LoomService's keys (the request body's,
 * the canonical tree's and the settings').
 *
 * The one-shot SHA256_Init / _Update / _Final calls are deprecated in OpenSSL 3 in favour
 * of EVP, but remain, and cost no context allocation per digest (a cell's request takes
 * four); libcrypto picks the CPU's SHA extensions where it has them.
 */
#ifndef LOOM_COPENSSL_SHIM_H
#define LOOM_COPENSSL_SHIM_H

#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>

#endif
