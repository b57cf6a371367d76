// EventArgs — key/value arguments attached to B, E, I and X records (`"args":{...}`).
//
// Values are strings, int64, doubles or booleans; keys keep their order. A double that is not
// finite is written as null (JSON has no NaN). Threading: a plain value.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace syncline::rec {

using ArgValue = std::variant<std::string, int64_t, double, bool>;
using EventArgs = std::vector<std::pair<std::string, ArgValue>>;

} // namespace syncline::rec
