// GlobPattern — see globpattern.h.
#include "recorder/globpattern.h"

namespace syncline::rec {

namespace {

// Matches one bracket set starting at p[i] == '['. Returns the index after ']' or npos when
// the set is malformed; *hit says whether c is in the set.
size_t matchSet(std::string_view p, size_t i, char c, bool *hit)
{
    size_t j = i + 1;
    bool negate = false;
    if (j < p.size() && (p[j] == '!' || p[j] == '^')) {
        negate = true;
        ++j;
    }
    bool in = false;
    bool first = true;
    while (j < p.size() && (p[j] != ']' || first)) {
        char lo = p[j];
        if (lo == '\\' && j + 1 < p.size())
            lo = p[++j];
        char hi = lo;
        if (j + 2 < p.size() && p[j + 1] == '-' && p[j + 2] != ']') {
            hi = p[j + 2];
            j += 2;
        }
        if (static_cast<unsigned char>(c) >= static_cast<unsigned char>(lo) &&
            static_cast<unsigned char>(c) <= static_cast<unsigned char>(hi))
            in = true;
        ++j;
        first = false;
    }
    if (j >= p.size())
        return std::string_view::npos;
    *hit = in != negate;
    return j + 1;
}

} // namespace

std::optional<std::string> GlobPattern::validate(std::string_view p)
{
    for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] == '\\') {
            if (i + 1 >= p.size())
                return "trailing '\\' at offset " + std::to_string(i);
            ++i;
        } else if (p[i] == '[') {
            bool hit = false;
            const size_t next = matchSet(p, i, 'x', &hit);
            if (next == std::string_view::npos)
                return "unterminated '[' at offset " + std::to_string(i);
            i = next - 1;
        }
    }
    return std::nullopt;
}

bool GlobPattern::match(std::string_view p, std::string_view s)
{
    // Iterative matcher with single-star backtracking: O(|p|·|s|) worst case.
    size_t pi = 0, si = 0;
    size_t starP = std::string_view::npos, starS = 0;
    while (si < s.size()) {
        if (pi < p.size()) {
            const char pc = p[pi];
            if (pc == '*') {
                starP = pi++;
                starS = si;
                continue;
            }
            if (pc == '?') {
                ++pi;
                ++si;
                continue;
            }
            if (pc == '[') {
                bool hit = false;
                const size_t next = matchSet(p, pi, s[si], &hit);
                if (next == std::string_view::npos)
                    return false;
                if (hit) {
                    pi = next;
                    ++si;
                    continue;
                }
            } else {
                char lit = pc;
                size_t adv = 1;
                if (pc == '\\') {
                    if (pi + 1 >= p.size())
                        return false;
                    lit = p[pi + 1];
                    adv = 2;
                }
                if (lit == s[si]) {
                    pi += adv;
                    ++si;
                    continue;
                }
            }
        }
        if (starP == std::string_view::npos)
            return false;
        pi = starP + 1;
        si = ++starS;
    }
    while (pi < p.size() && p[pi] == '*')
        ++pi;
    return pi == p.size();
}

bool GlobPattern::hasWildcards(std::string_view p)
{
    for (size_t i = 0; i < p.size(); ++i) {
        if (p[i] == '\\')
            ++i;
        else if (p[i] == '*' || p[i] == '?' || p[i] == '[')
            return true;
    }
    return false;
}

std::string GlobPattern::escape(std::string_view text)
{
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\')
            out += '\\';
        out += c;
    }
    return out;
}

} // namespace syncline::rec
