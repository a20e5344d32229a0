// JSON string literals as Slurm writes them (json-c's json_escape_str): quotes, backslashes,
// '/' and control characters escaped, other bytes (UTF-8) as they are. Used by the front ends'
// --json output and by canopyd's audit log. Pure.
#pragma once

#include <string>

namespace canopy::slurm {

// `s` as a JSON string literal, quotes included.
std::string JsonQuote(const std::string& s);

}  // namespace canopy::slurm
