// ArgsTree — an event's args object (JSON text, Timeline::args) as rows of a key/value tree,
// for display (the viewer's Details panel): one row per member, nested objects and arrays
// indented under their key ("[0]", "[1]", … for array elements). Pure, no I/O.
// Invariants: never throws; scans iteratively (no recursion on the input); at most maxRows rows
// (a last row "…" says more were left out); malformed text gives no rows (show it raw).
// Threading: pure function.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace syncline {

struct ArgsRow
{
    int depth = 0;     // 0 for the object's own members
    std::string key;   // member name, or "[i]" in an array
    std::string value; // scalar text (strings unquoted); "" for an object or array (its rows follow)
    bool container = false;
};

std::vector<ArgsRow> argsTree(std::string_view json, size_t maxRows = 500);

} // namespace syncline
