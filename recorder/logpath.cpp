// LogPath — see logpath.h.
#include "recorder/logpath.h"

#include "recorder/globpattern.h"
#include "recorder/timerconfig.h"

#include <algorithm>
#include <cstddef>

namespace syncline::rec {

namespace {

// The one list of placeholders: expand(), validate() and globs() all read it.
struct Placeholder
{
    const char *key;
    bool text; // a string value, possibly empty (the numeric ones never are)
    std::string (*value)(const WorkerIdentity &);
};

const Placeholder kPlaceholders[] = {
    {"rank", false, [](const WorkerIdentity &w) { return std::to_string(w.rank); }},
    {"local_rank", false, [](const WorkerIdentity &w) { return std::to_string(w.localRank); }},
    {"restart", false, [](const WorkerIdentity &w) { return std::to_string(w.restart); }},
    {"pid", false, [](const WorkerIdentity &w) { return std::to_string(w.pid); }},
    {"host", true, [](const WorkerIdentity &w) { return w.host; }},
    {"run_id", true, [](const WorkerIdentity &w) { return w.runId; }},
    {"role", true, [](const WorkerIdentity &w) { return w.role; }},
};

// A template split into literal characters and placeholders.
struct Token
{
    char literal = 0;
    const Placeholder *placeholder = nullptr;
};

// Splits a template; returns the reason for a bad one in *error (left empty on success).
std::vector<Token> tokenize(const std::string &t, std::string *error)
{
    std::vector<Token> out;
    for (size_t i = 0; i < t.size(); ++i) {
        const char ch = t[i];
        if ((ch == '{' || ch == '}') && i + 1 < t.size() && t[i + 1] == ch) {
            out.push_back({ch});
            ++i;
            continue;
        }
        if (ch == '}') {
            *error = "unmatched '}' at offset " + std::to_string(i);
            return {};
        }
        if (ch != '{') {
            out.push_back({ch});
            continue;
        }
        const size_t close = t.find('}', i);
        if (close == std::string::npos) {
            *error = "unmatched '{' at offset " + std::to_string(i);
            return {};
        }
        const std::string key = t.substr(i + 1, close - i - 1);
        const auto known = std::find_if(std::begin(kPlaceholders), std::end(kPlaceholders),
                                        [&](const Placeholder &p) { return key == p.key; });
        if (known == std::end(kPlaceholders)) {
            *error = "unknown placeholder {" + key + "}; known:";
            for (const Placeholder &p : kPlaceholders)
                *error += std::string(" {") + p.key + "}";
            return {};
        }
        out.push_back({0, &*known});
        i = close;
    }
    return out;
}

std::vector<Token> checkedTokens(const std::string &tmpl)
{
    if (auto why = LogPath::validate(tmpl))
        throw ConfigError("log_path \"" + tmpl + "\": " + *why);
    std::string error;
    return tokenize(tmpl, &error);
}

bool hasRank(const std::vector<Token> &tokens)
{
    return std::any_of(tokens.begin(), tokens.end(), [](const Token &t) {
        return t.placeholder && std::string_view(t.placeholder->key) == "rank";
    });
}

// Where `.<rank>` goes in `path` (a file name's last dot, or the end when there is none or it
// is the name's first character); name starts after the last '/'. Shared by expand() and
// globs() so that both place it alike.
template <class Seq, class IsChar> size_t rankTagPosition(const Seq &path, IsChar isChar)
{
    size_t base = 0, dot = path.size();
    for (size_t i = 0; i < path.size(); ++i) {
        if (isChar(path[i], '/'))
            base = i + 1, dot = path.size();
        else if (isChar(path[i], '.'))
            dot = i;
    }
    return dot == path.size() || dot == base ? path.size() : dot;
}

// A template with each placeholder either left out (an empty value) or a wildcard.
constexpr int kStar = -1;
using Shape = std::vector<int>; // unsigned chars, or kStar

// Renders a shape as a glob pattern: literals escaped, adjacent wildcards as one `*`, runs of
// '/' as one '/'.
std::string render(const Shape &shape)
{
    std::string out;
    int prev = 0;
    for (const int c : shape) {
        if ((c == kStar || c == '/') && c == prev)
            continue;
        out += c == kStar ? std::string("*") : GlobPattern::escape(std::string(1, char(c)));
        prev = c;
    }
    return out;
}

} // namespace

std::optional<std::string> LogPath::validate(const std::string &tmpl)
{
    if (tmpl.empty())
        return std::string("empty path");
    std::string error;
    tokenize(tmpl, &error);
    if (!error.empty())
        return error;
    return std::nullopt;
}

std::string LogPath::expand(const std::string &tmpl, const WorkerIdentity &who)
{
    const std::vector<Token> tokens = checkedTokens(tmpl);
    std::string path;
    for (const Token &t : tokens)
        path += t.placeholder ? t.placeholder->value(who) : std::string(1, t.literal);
    if (!hasRank(tokens) && who.worldSize > 1)
        path.insert(rankTagPosition(path, [](char c, char want) { return c == want; }),
                    "." + std::to_string(who.rank));
    return path;
}

std::vector<std::string> LogPath::globs(const std::string &tmpl)
{
    const std::vector<Token> tokens = checkedTokens(tmpl);
    // The distinct text placeholders: each may be empty (the same value at every occurrence).
    std::vector<const Placeholder *> text;
    for (const Token &t : tokens)
        if (t.placeholder && t.placeholder->text &&
            std::find(text.begin(), text.end(), t.placeholder) == text.end())
            text.push_back(t.placeholder);
    const bool tagged = !hasRank(tokens);
    std::vector<std::string> out;
    auto add = [&](const Shape &shape) {
        const std::string p = render(shape);
        if (std::find(out.begin(), out.end(), p) == out.end())
            out.push_back(p);
    };
    for (unsigned empty = 0; empty < (1u << text.size()); ++empty) {
        Shape shape;
        for (const Token &t : tokens) {
            if (!t.placeholder) {
                shape.push_back(static_cast<unsigned char>(t.literal));
                continue;
            }
            const size_t k =
                size_t(std::find(text.begin(), text.end(), t.placeholder) - text.begin());
            if (k == text.size() || !(empty & (1u << k)))
                shape.push_back(kStar);
        }
        if (shape.empty() || shape.back() == '/')
            continue; // no file name: nothing the recorder can have written
        add(shape);
        if (!tagged)
            continue;
        // The tag is inserted at the name's last literal dot. When the expanded name's last dot
        // lies in a placeholder's value instead, the tag lands inside that value: its `*`
        // matches it already.
        const size_t at = rankTagPosition(shape, [](int c, char want) { return c == want; });
        shape.insert(shape.begin() + std::ptrdiff_t(at), {'.', kStar});
        add(shape);
    }
    // A later incarnation's file (incarnation()): `.r*` where the tags go, for every pattern.
    // (`*` does not always cover it: "w_{rank}_x.log" gives "w_*_x.log", its file "w_3_x.r1.log".)
    const size_t plain = out.size();
    for (size_t i = 0; i < plain; ++i) {
        std::string p = out[i];
        p.insert(rankTagPosition(p, [](char c, char want) { return c == want; }), ".r*");
        if (std::find(out.begin(), out.end(), p) == out.end())
            out.push_back(p);
    }
    return out;
}

std::string LogPath::incarnation(const std::string &path, int restart, int64_t pid, int n)
{
    if (restart == 0)
        ++n; // the plain name is restart 0's own: its clash is with another restart-0 incarnation
    std::string tag = ".r" + std::to_string(restart);
    if (n >= 1)
        tag += ".p" + std::to_string(pid);
    if (n >= 2)
        tag += "." + std::to_string(n - 1);
    std::string out = path;
    out.insert(rankTagPosition(out, [](char c, char want) { return c == want; }), tag);
    return out;
}

} // namespace syncline::rec
