// LogPath — see logpath.h.
#include "recorder/logpath.h"

#include "recorder/timerconfig.h"

namespace syncline::rec {

namespace {

// Replaces placeholders; returns the reason for a bad template in *error (and "" on success).
std::string substitute(const std::string &t, const WorkerIdentity *who, bool *sawRank,
                       std::string *error)
{
    std::string out;
    *sawRank = false;
    for (size_t i = 0; i < t.size(); ++i) {
        const char ch = t[i];
        if ((ch == '{' || ch == '}') && i + 1 < t.size() && t[i + 1] == ch) {
            out += ch;
            ++i;
            continue;
        }
        if (ch == '}') {
            *error = "unmatched '}' at offset " + std::to_string(i);
            return {};
        }
        if (ch != '{') {
            out += ch;
            continue;
        }
        const size_t close = t.find('}', i);
        if (close == std::string::npos) {
            *error = "unmatched '{' at offset " + std::to_string(i);
            return {};
        }
        const std::string key = t.substr(i + 1, close - i - 1);
        std::string value;
        if (key == "rank") {
            *sawRank = true;
            value = who ? std::to_string(who->rank) : "";
        } else if (key == "local_rank") {
            value = who ? std::to_string(who->localRank) : "";
        } else if (key == "restart") {
            value = who ? std::to_string(who->restart) : "";
        } else if (key == "pid") {
            value = who ? std::to_string(who->pid) : "";
        } else if (key == "host") {
            value = who ? who->host : "";
        } else if (key == "run_id") {
            value = who ? who->runId : "";
        } else if (key == "role") {
            value = who ? who->role : "";
        } else {
            *error = "unknown placeholder {" + key +
                     "}; known: {rank} {local_rank} {restart} {pid} {host} {run_id} {role}";
            return {};
        }
        out += value;
        i = close;
    }
    return out;
}

} // namespace

std::optional<std::string> LogPath::validate(const std::string &tmpl)
{
    if (tmpl.empty())
        return std::string("empty path");
    bool sawRank = false;
    std::string error;
    substitute(tmpl, nullptr, &sawRank, &error);
    if (!error.empty())
        return error;
    return std::nullopt;
}

std::string LogPath::expand(const std::string &tmpl, const WorkerIdentity &who)
{
    if (auto why = validate(tmpl))
        throw ConfigError("log_path \"" + tmpl + "\": " + *why);
    bool sawRank = false;
    std::string error;
    std::string path = substitute(tmpl, &who, &sawRank, &error);
    if (!sawRank && who.worldSize > 1) {
        const size_t slash = path.rfind('/');
        const size_t base = slash == std::string::npos ? 0 : slash + 1;
        const size_t dot = path.rfind('.');
        const std::string tag = "." + std::to_string(who.rank);
        if (dot == std::string::npos || dot <= base) // no extension, or a dot file
            path += tag;
        else
            path.insert(dot, tag);
    }
    return path;
}

} // namespace syncline::rec
