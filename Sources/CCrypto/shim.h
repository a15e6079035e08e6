#ifndef CCRYPTO_SHIM_H
#define CCRYPTO_SHIM_H

/// OpenSSL's libcrypto, for SHA-256 and HMAC-SHA256 only: it uses the CPU's SHA instructions
/// where there are some (several times libavutil's portable code), and libpq already brings it.
#include <openssl/evp.h>
#include <openssl/hmac.h>

#endif
