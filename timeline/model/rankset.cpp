#include "timeline/model/rankset.h"

#include <algorithm>
#include <cctype>
#include <climits>

namespace syncline {

namespace {

// A rank: decimal digits only, at most INT_MAX.
bool parseRank(const std::string &s, int &out)
{
    if (s.empty() || s.size() > 10)
        return false;
    int64_t v = 0;
    for (char c : s) {
        if (!std::isdigit(static_cast<unsigned char>(c)))
            return false;
        v = v * 10 + (c - '0');
    }
    if (v > INT_MAX)
        return false;
    out = int(v);
    return true;
}

std::string trimmed(const std::string &s)
{
    const size_t a = s.find_first_not_of(" \t");
    if (a == std::string::npos)
        return {};
    return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

} // namespace

bool RankSet::parse(const std::string &text, RankSet &out, std::string *error)
{
    RankSet r;
    auto fail = [&](const std::string &why) {
        if (error)
            *error = why;
        return false;
    };
    if (trimmed(text).empty())
        return fail("no ranks given (e.g. 0-63,512)");
    size_t from = 0;
    while (from <= text.size()) {
        size_t comma = text.find(',', from);
        if (comma == std::string::npos)
            comma = text.size();
        const std::string item = trimmed(text.substr(from, comma - from));
        from = comma + 1;
        if (item.empty())
            return fail("empty item in '" + text + "' (e.g. 0-63,512)");
        const size_t dash = item.find('-');
        int a = 0, b = 0;
        if (dash == std::string::npos) {
            if (!parseRank(item, a))
                return fail("'" + item + "': not a rank (0.." + std::to_string(INT_MAX) +
                            ") or a range A-B");
            b = a;
        } else {
            if (!parseRank(trimmed(item.substr(0, dash)), a) ||
                !parseRank(trimmed(item.substr(dash + 1)), b))
                return fail("'" + item + "': not a rank (0.." + std::to_string(INT_MAX) +
                            ") or a range A-B");
            if (b < a)
                return fail("'" + item + "': the range ends before it starts");
        }
        r.add(a, b);
    }
    r.normalise();
    out = std::move(r);
    return true;
}

RankSet RankSet::of(const std::vector<int> &ranks)
{
    RankSet r;
    for (int k : ranks)
        if (k >= 0)
            r.add(k, k);
    r.normalise();
    return r;
}

void RankSet::add(int first, int last)
{
    m_ranges.emplace_back(first, last);
}

void RankSet::normalise()
{
    std::sort(m_ranges.begin(), m_ranges.end());
    std::vector<std::pair<int, int>> out;
    for (const auto &[a, b] : m_ranges)
        if (!out.empty() && int64_t(a) <= int64_t(out.back().second) + 1)
            out.back().second = std::max(out.back().second, b);
        else
            out.emplace_back(a, b);
    m_ranges = std::move(out);
}

bool RankSet::contains(int rank) const
{
    if (all())
        return true;
    auto it = std::upper_bound(m_ranges.begin(), m_ranges.end(), rank,
                               [](int v, const std::pair<int, int> &r) { return v < r.first; });
    return it != m_ranges.begin() && rank <= std::prev(it)->second;
}

int64_t RankSet::count() const
{
    int64_t n = 0;
    for (const auto &[a, b] : m_ranges)
        n += int64_t(b) - a + 1;
    return n;
}

std::string RankSet::toString() const
{
    std::string s;
    for (const auto &[a, b] : m_ranges) {
        if (!s.empty())
            s += ',';
        s += std::to_string(a);
        if (b != a)
            s += '-' + std::to_string(b);
    }
    return s;
}

} // namespace syncline
