// GlobPattern — shell-style name patterns for config event kinds (`"glob": "layer*"`); escape()
// also serves the log path globs (LogPath::globs()).
//
// Syntax: `*` any run of characters (also empty), `?` exactly one character, `[abc]` / `[a-z]`
// one character of a set, `[!abc]` or `[^abc]` one character not in it, `\x` the literal x.
// Matching is on bytes (UTF-8 names compare bytewise; `?` matches one byte) and covers the
// whole name. A pattern is invalid when a `[` set is unterminated or empty, or it ends in `\`.
// Threading: stateless; all functions are safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace syncline::rec {

class GlobPattern
{
public:
    // nullopt when valid, else the reason (e.g. "unterminated '[' at offset 3").
    static std::optional<std::string> validate(std::string_view pattern);
    // Whole-string match; an invalid pattern matches nothing.
    static bool match(std::string_view pattern, std::string_view name);
    // True when the string contains an unescaped *, ? or [.
    static bool hasWildcards(std::string_view pattern);
    // A pattern that matches exactly `text`: every * ? [ ] \ escaped with '\' (also valid for
    // glob(3) and fnmatch(3)).
    static std::string escape(std::string_view text);
};

} // namespace syncline::rec
