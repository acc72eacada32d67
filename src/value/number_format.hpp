#pragma once
// Number to text, in the two styles Sindri must reproduce exactly.

#include <cstdint>
#include <string>

namespace sindri {

// Shortest digits that read back to the same double, written without an
// exponent, as Rust's `Display` writes an f64 (what Tera prints):
// 1.0 -> "1", 0.1 -> "0.1", 1e21 -> "1000000000000000000000", NaN -> "NaN".
void append_float_plain(std::string& out, double d);

// As serde_json writes an f64 (ryu): 1.0 -> "1.0", 1e16 -> "1e16",
// 1.5e-7 -> "1.5e-7"; non-finite values become "null".
void append_float_json(std::string& out, double d);

void append_int(std::string& out, int64_t i);

}  // namespace sindri
