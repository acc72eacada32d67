#pragma once
// Base64 (RFC 4648, standard alphabet) as a kubeconfig's *-data fields hold it.

#include <string>
#include <string_view>

#include "value/result.hpp"

namespace sindri::kube {

// Line breaks are skipped (as Go's decoder skips them); padding is optional.
// The error says what is wrong and where, without the text itself (it may
// be a private key).
Result<std::string> decode_base64(std::string_view text);

}  // namespace sindri::kube
