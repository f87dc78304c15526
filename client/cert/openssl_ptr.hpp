// OpenSSL objects owned by std::unique_ptr, each freed by its own type's *_free function.
#pragma once

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/x509.h>

#include <memory>

namespace rg::client {

/// A unique_ptr deleter calling OpenSSL's `Free` (X509_free, EVP_PKEY_free, ...).
template <auto Free>
struct OpenSslFree {
  template <class T>
  void operator()(T* p) const {
    Free(p);
  }
};

template <class T, auto Free>
using OpenSslPtr = std::unique_ptr<T, OpenSslFree<Free>>;

using BioPtr = OpenSslPtr<BIO, BIO_free_all>;
using BignumPtr = OpenSslPtr<BIGNUM, BN_free>;
using EvpKeyPtr = OpenSslPtr<EVP_PKEY, EVP_PKEY_free>;
using X509Ptr = OpenSslPtr<X509, X509_free>;
using X509ExtensionPtr = OpenSslPtr<X509_EXTENSION, X509_EXTENSION_free>;

}  // namespace rg::client
