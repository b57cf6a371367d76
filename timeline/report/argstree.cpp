#include "timeline/report/argstree.h"

#include <cctype>

namespace syncline {

namespace {

struct Scanner
{
    std::string_view s;
    size_t i = 0;
    void ws()
    {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
    }
    bool string(std::string *out) // at '"'
    {
        ++i;
        while (i < s.size() && s[i] != '"') {
            if (s[i] == '\\' && i + 1 < s.size()) {
                const char e = s[++i];
                out->push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e);
            } else {
                out->push_back(s[i]);
            }
            ++i;
        }
        if (i >= s.size())
            return false;
        ++i;
        return true;
    }
    bool scalar(std::string *out) // a number, true, false or null
    {
        const size_t b = i;
        while (i < s.size() && s[i] != ',' && s[i] != '}' && s[i] != ']' &&
               !std::isspace(static_cast<unsigned char>(s[i])))
            ++i;
        *out = std::string(s.substr(b, i - b));
        return i > b;
    }
};

} // namespace

std::vector<ArgsRow> argsTree(std::string_view json, size_t maxRows)
{
    std::vector<ArgsRow> rows;
    Scanner sc{json};
    sc.ws();
    if (sc.i >= json.size() || json[sc.i] != '{')
        return {};
    ++sc.i;
    struct Level
    {
        bool array = false;
        int count = 0; // members seen
    };
    std::vector<Level> stack{{false, 0}};
    bool truncated = false;
    while (!stack.empty()) {
        sc.ws();
        if (sc.i >= json.size())
            return {};
        Level &top = stack.back();
        const char close = top.array ? ']' : '}';
        if (json[sc.i] == close) {
            ++sc.i;
            stack.pop_back();
            continue;
        }
        if (top.count > 0) {
            if (json[sc.i] != ',')
                return {};
            ++sc.i;
            sc.ws();
        }
        ArgsRow row;
        row.depth = int(stack.size()) - 1;
        if (top.array) {
            row.key = "[" + std::to_string(top.count) + "]";
        } else {
            if (sc.i >= json.size() || json[sc.i] != '"' || !sc.string(&row.key))
                return {};
            sc.ws();
            if (sc.i >= json.size() || json[sc.i] != ':')
                return {};
            ++sc.i;
            sc.ws();
        }
        ++top.count;
        if (sc.i >= json.size())
            return {};
        const char c = json[sc.i];
        bool open = false;
        if (c == '{' || c == '[') {
            row.container = true;
            open = true;
            ++sc.i;
        } else if (c == '"') {
            if (!sc.string(&row.value))
                return {};
        } else if (!sc.scalar(&row.value)) {
            return {};
        }
        if (rows.size() < maxRows)
            rows.push_back(std::move(row));
        else
            truncated = true;
        if (open)
            stack.push_back({c == '[', 0});
    }
    if (truncated)
        rows.push_back({0, "…", "more left out", false});
    return rows;
}

} // namespace syncline
