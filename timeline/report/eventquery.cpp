#include "timeline/report/eventquery.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace syncline {

namespace {

std::string lower(std::string_view s)
{
    std::string out(s);
    for (char &c : out)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool containsCi(std::string_view hay, const std::string &lowNeedle)
{
    if (lowNeedle.empty())
        return true;
    const auto it = std::search(hay.begin(), hay.end(), lowNeedle.begin(), lowNeedle.end(),
                                [](char a, char b) {
                                    return std::tolower(static_cast<unsigned char>(a)) == b;
                                });
    return it != hay.end();
}

std::optional<double> number(std::string_view s)
{
    if (s.empty())
        return std::nullopt;
    double v = 0;
    const char *b = s.data(), *e = s.data() + s.size();
    if (*b == '+')
        ++b;
    const auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p != e || !std::isfinite(v))
        return std::nullopt;
    return v;
}

std::optional<double> durationNs(std::string_view s)
{
    struct Unit
    {
        std::string_view name;
        double ns;
    };
    static constexpr Unit units[] = {{"ns", 1},   {"us", 1e3}, {"µs", 1e3},
                                     {"ms", 1e6}, {"s", 1e9},  {"min", 60e9}};
    for (const Unit &u : units)
        if (s.size() > u.name.size() && s.substr(s.size() - u.name.size()) == u.name) {
            const std::string_view num = s.substr(0, s.size() - u.name.size());
            if (num.back() >= '0' && num.back() <= '9') // "1ms", not "1m" + "s"
                if (const auto v = number(num))
                    return *v * u.ns;
        }
    return number(s); // no unit: ns
}

bool compare(double a, EventQuery::Op op, double b)
{
    switch (op) {
    case EventQuery::Op::Eq: return a == b;
    case EventQuery::Op::Ne: return a != b;
    case EventQuery::Op::Lt: return a < b;
    case EventQuery::Op::Le: return a <= b;
    case EventQuery::Op::Gt: return a > b;
    case EventQuery::Op::Ge: return a >= b;
    default: return false;
    }
}

// Splits on spaces outside quotes and /regex/; unquotes values. Each token keeps whether a
// quote was used (a quoted value is never a regex).
struct Token
{
    std::string text;
    bool quoted = false;
    bool negate = false; // a leading '-'
};

bool tokenize(std::string_view s, std::vector<Token> *out, std::string *error)
{
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
        if (i >= s.size())
            break;
        Token t;
        if (s[i] == '-' && i + 1 < s.size() && !std::isspace(static_cast<unsigned char>(s[i + 1]))) {
            t.negate = true;
            ++i;
        }
        bool inRegex = false;
        for (; i < s.size(); ++i) {
            const char c = s[i];
            if (!inRegex && std::isspace(static_cast<unsigned char>(c)))
                break;
            if (!inRegex && c == '"') {
                const size_t close = s.find('"', i + 1);
                if (close == std::string_view::npos) {
                    *error = "unclosed quote";
                    return false;
                }
                t.text.append(s.substr(i + 1, close - i - 1));
                t.quoted = true;
                i = close;
                continue;
            }
            if (c == '/' && (inRegex || t.text.empty() || t.text.back() == ':'))
                inRegex = !inRegex;
            t.text.push_back(c);
        }
        if (inRegex) {
            *error = "unclosed /regex/";
            return false;
        }
        out->push_back(std::move(t));
    }
    return true;
}

} // namespace

std::optional<EventQuery> EventQuery::parse(std::string_view text, std::string *error)
{
    std::string scratch;
    if (!error)
        error = &scratch;
    std::vector<Token> tokens;
    if (!tokenize(text, &tokens, error))
        return std::nullopt;
    EventQuery q;
    for (Token &tok : tokens) {
        Term t;
        t.negate = tok.negate;
        std::string s = tok.text;
        // field OP value: the first operator character after a field name.
        static constexpr std::string_view ops[] = {"<=", ">=", "!=", "=", "<", ">", ":"};
        size_t opPos = std::string::npos, opLen = 0;
        if (s.empty() || s[0] != '/') {
            for (size_t p = 0; p < s.size() && opPos == std::string::npos; ++p)
                for (std::string_view o : ops)
                    if (s.compare(p, o.size(), o) == 0) {
                        opPos = p;
                        opLen = o.size();
                        break;
                    }
        }
        std::string field = opPos == std::string::npos ? std::string() : lower(s.substr(0, opPos));
        std::string op = opPos == std::string::npos ? "" : s.substr(opPos, opLen);
        std::string value = opPos == std::string::npos ? s : s.substr(opPos + opLen);
        if (field.empty() && s.rfind("args.", 0) == 0) { // args.K alone
            field = s;
        }
        auto setRegex = [&](const std::string &body) -> bool {
            try {
                t.regex = std::make_shared<const std::regex>(
                    body, std::regex::ECMAScript | std::regex::icase);
            } catch (const std::regex_error &) {
                *error = "invalid regex /" + body + "/";
                return false;
            }
            t.op = Op::Regex;
            return true;
        };
        auto isRegexValue = [&] {
            return !tok.quoted && value.size() >= 2 && value.front() == '/' && value.back() == '/';
        };
        auto textOp = [&]() -> bool {
            if (op == ":") {
                if (isRegexValue())
                    return setRegex(value.substr(1, value.size() - 2));
                t.op = Op::Contains;
                t.text = lower(value);
                return true;
            }
            if (op == "=" || op == "!=") {
                t.op = op == "=" ? Op::Eq : Op::Ne;
                t.text = value;
                return true;
            }
            *error = "'" + field + op + "': text fields take ':' (contains) or '=' (equals)";
            return false;
        };
        auto opOf = [&](std::string_view o) {
            return o == "=" || o == ":" ? Op::Eq
                   : o == "!="          ? Op::Ne
                   : o == "<"           ? Op::Lt
                   : o == "<="          ? Op::Le
                   : o == ">"           ? Op::Gt
                                        : Op::Ge;
        };
        static constexpr std::string_view known[] = {
            "name", "cat", "category", "host", "thread", "tid", "rank", "restart", "dur",
            "duration"};
        if (!field.empty() && field.rfind("args.", 0) != 0 &&
            std::find(std::begin(known), std::end(known), field) == std::end(known)) {
            field.clear(); // not a field ("aten::mm"): the whole token is a word of the name
            value = s;
            opPos = std::string::npos;
        }
        if (opPos == std::string::npos && field.empty()) { // a bare word or /regex/
            t.field = Field::Name;
            if (isRegexValue()) {
                if (!setRegex(value.substr(1, value.size() - 2)))
                    return std::nullopt;
            } else {
                t.op = Op::Contains;
                t.text = lower(value);
            }
        } else if (field == "name" || field == "cat" || field == "category" || field == "host") {
            t.field = field == "name" ? Field::Name : field == "host" ? Field::Host : Field::Category;
            if (!textOp())
                return std::nullopt;
        } else if (field == "thread" || field == "tid") {
            t.field = Field::Thread;
            if (!textOp())
                return std::nullopt;
            if (const auto v = number(value)) {
                t.numeric = true;
                t.number = *v;
            }
        } else if (field == "rank" || field == "restart") {
            t.field = field == "rank" ? Field::Rank : Field::Restart;
            const size_t dash = value.find('-', 1);
            if (op == ":" && dash != std::string::npos) {
                const auto lo = number(value.substr(0, dash)), hi = number(value.substr(dash + 1));
                if (!lo || !hi) {
                    *error = field + ": '" + value + "' is not a range N-M";
                    return std::nullopt;
                }
                t.op = Op::Range;
                t.number = *lo;
                t.high = *hi;
            } else {
                const auto v = number(value);
                if (!v) {
                    *error = field + ": '" + value + "' is not a number";
                    return std::nullopt;
                }
                t.op = opOf(op);
                t.number = *v;
            }
        } else if (field == "dur" || field == "duration") {
            t.field = Field::Duration;
            const auto v = durationNs(value);
            if (!v) {
                *error = "dur: '" + value + "' is not a duration (ns, us, ms, s)";
                return std::nullopt;
            }
            t.op = opOf(op);
            t.number = *v;
        } else if (field.rfind("args.", 0) == 0 && field.size() > 5) {
            t.field = Field::Arg;
            t.argPath = (opPos == std::string::npos ? s : s.substr(0, opPos)).substr(5);
            if (opPos == std::string::npos) {
                t.op = Op::Has;
            } else if (op == ":") {
                if (!textOp())
                    return std::nullopt;
            } else {
                t.op = opOf(op);
                t.text = value;
                if (const auto v = number(value)) {
                    t.numeric = true;
                    t.number = *v;
                } else if (t.op != Op::Eq && t.op != Op::Ne) {
                    *error = "args." + t.argPath + op + ": '" + value + "' is not a number";
                    return std::nullopt;
                }
            }
        } else {
            *error = "'" + field + "': args needs a key (args.KEY)";
            return std::nullopt;
        }
        switch (t.field) {
        case Field::Name:
        case Field::Category: q.m_hasName = true; break;
        case Field::Host:
        case Field::Thread:
        case Field::Rank:
        case Field::Restart: q.m_hasTrack = true; break;
        case Field::Duration: q.m_hasDuration = true; break;
        case Field::Arg: q.m_hasArgs = true; break;
        }
        q.m_terms.push_back(std::move(t));
    }
    return q;
}

namespace {

bool textHit(const EventQuery::Term &t, std::string_view v)
{
    switch (t.op) {
    case EventQuery::Op::Contains: return containsCi(v, t.text);
    case EventQuery::Op::Regex: return std::regex_search(v.begin(), v.end(), *t.regex);
    case EventQuery::Op::Eq: return v == t.text;
    case EventQuery::Op::Ne: return v != t.text;
    default: return false;
    }
}

bool numberHit(const EventQuery::Term &t, double v)
{
    if (t.op == EventQuery::Op::Range)
        return v >= t.number && v <= t.high;
    return compare(v, t.op, t.number);
}

} // namespace

bool EventQuery::matchesName(std::string_view name, std::string_view category) const
{
    for (const Term &t : m_terms) {
        if (t.field == Field::Name && textHit(t, name) == t.negate)
            return false;
        if (t.field == Field::Category && textHit(t, category) == t.negate)
            return false;
    }
    return true;
}

bool EventQuery::matchesTrack(const WorkerInfo &w, const EventTrack &track) const
{
    for (const Term &t : m_terms) {
        bool hit = true;
        switch (t.field) {
        case Field::Host: hit = textHit(t, w.host); break;
        case Field::Rank: hit = numberHit(t, w.rank); break;
        case Field::Restart: hit = numberHit(t, w.restart); break;
        case Field::Thread:
            hit = textHit(t, track.threadName) ||
                  (t.numeric && t.op != Op::Ne && double(track.tid) == t.number);
            break;
        default: continue;
        }
        if (hit == t.negate)
            return false;
    }
    return true;
}

bool EventQuery::matchesDuration(int64_t durationNs) const
{
    for (const Term &t : m_terms)
        if (t.field == Field::Duration &&
            (durationNs >= 0 && compare(double(durationNs), t.op, t.number)) == t.negate)
            return false;
    return true;
}

bool EventQuery::matchesArgs(std::string_view json) const
{
    for (const Term &t : m_terms) {
        if (t.field != Field::Arg)
            continue;
        const std::optional<std::string> v = argValue(json, t.argPath);
        bool hit = false;
        if (v) {
            switch (t.op) {
            case Op::Has: hit = true; break;
            case Op::Contains: hit = containsCi(*v, t.text); break;
            case Op::Regex: hit = std::regex_search(*v, *t.regex); break;
            case Op::Eq:
            case Op::Ne: {
                const auto n = number(*v);
                const bool eq = t.numeric && n ? *n == t.number : *v == t.text;
                hit = t.op == Op::Eq ? eq : !eq;
                break;
            }
            default:
                if (const auto n = number(*v))
                    hit = compare(*n, t.op, t.number);
            }
        }
        if (hit == t.negate)
            return false;
    }
    return true;
}

std::string_view EventQuery::categoryOf(const Timeline &timeline, const EventTrack &track,
                                        uint32_t nameId)
{
    const NameKind *k = timeline.kindOf(nameId);
    return k && !k->category.empty() ? std::string_view(k->category)
                                     : std::string_view(track.category);
}

bool EventQuery::matches(const Timeline &tl, size_t worker, size_t track, size_t index,
                         ClockMode mode) const
{
    const Worker &w = tl.workers[worker];
    const EventTrack &tr = w.tracks[track];
    const uint32_t nameId = tr.nameId[index];
    const std::string_view name = tl.names.name(nameId);
    if (!matchesName(name, categoryOf(tl, tr, nameId)) || !matchesTrack(w.info, tr))
        return false;
    if (m_hasDuration) {
        const bool complete = !(tr.flags[index] & (EventOpen | EventInstant));
        const sync::ClockMap &map = w.map(mode);
        const int64_t d =
            complete ? map.toGlobal(tr.localEnd[index]) - map.toGlobal(tr.localStart[index]) : -1;
        if (!matchesDuration(d))
            return false;
    }
    if (m_hasArgs) {
        const int64_t id = tr.argsId(uint32_t(index));
        if (!matchesArgs(id < 0 ? std::string_view() : tl.args.text(uint32_t(id))))
            return false;
    }
    return true;
}

// A small scanner over one JSON object's members: finds key `path`'s first segment at the top
// level, then descends. Values are skipped by counting brackets outside strings (iterative).
std::optional<std::string> EventQuery::argValue(std::string_view json, std::string_view path)
{
    size_t i = 0;
    auto ws = [&] {
        while (i < json.size() && std::isspace(static_cast<unsigned char>(json[i])))
            ++i;
    };
    auto readString = [&](std::string *out) -> bool { // at '"'
        ++i;
        while (i < json.size() && json[i] != '"') {
            if (json[i] == '\\' && i + 1 < json.size()) {
                const char e = json[++i];
                out->push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e);
            } else {
                out->push_back(json[i]);
            }
            ++i;
        }
        if (i >= json.size())
            return false;
        ++i;
        return true;
    };
    auto skipValue = [&]() -> bool { // to the ',' or closing bracket after the value
        int depth = 0;
        while (i < json.size()) {
            const char c = json[i];
            if (c == '"') {
                std::string ignored;
                if (!readString(&ignored))
                    return false;
                continue;
            }
            if (depth == 0 && (c == ',' || c == '}' || c == ']'))
                return true;
            if (c == '{' || c == '[')
                ++depth;
            else if (c == '}' || c == ']')
                --depth;
            ++i;
        }
        return depth == 0;
    };
    while (true) {
        const size_t dot = path.find('.');
        const std::string_view key = path.substr(0, dot);
        ws();
        if (i >= json.size() || json[i] != '{')
            return std::nullopt;
        ++i;
        bool found = false;
        while (true) {
            ws();
            if (i >= json.size() || json[i] != '"')
                return std::nullopt;
            std::string k;
            if (!readString(&k))
                return std::nullopt;
            ws();
            if (i >= json.size() || json[i] != ':')
                return std::nullopt;
            ++i;
            ws();
            if (k == key) {
                found = true;
                break;
            }
            if (!skipValue())
                return std::nullopt;
            ws();
            if (i >= json.size() || json[i] != ',')
                return std::nullopt; // '}' (not found) or malformed
            ++i;
        }
        if (!found)
            return std::nullopt;
        if (dot != std::string_view::npos) {
            path = path.substr(dot + 1);
            json = json.substr(i);
            i = 0;
            continue;
        }
        if (i < json.size() && json[i] == '"') {
            std::string s;
            if (!readString(&s))
                return std::nullopt;
            return s;
        }
        const size_t begin = i;
        if (!skipValue())
            return std::nullopt;
        std::string_view raw = json.substr(begin, i - begin);
        while (!raw.empty() && std::isspace(static_cast<unsigned char>(raw.back())))
            raw.remove_suffix(1);
        if (raw.empty())
            return std::nullopt; // "{"a":" — no value
        return std::string(raw);
    }
}

} // namespace syncline
