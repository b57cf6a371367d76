// A minimal, independent reader of log format v1 for the recorder tests (docs/log-format.md):
// parses each line with nlohmann_json, skips a torn last line, and checks B/E nesting per tid.
// It shares no code with the recorder's writer.
#pragma once

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace testlog {

struct Log
{
    std::vector<nlohmann::json> records;
    bool tornLastLine = false;
    std::vector<std::string> problems; // bad lines, misnesting

    std::vector<nlohmann::json> ofType(const std::string &t) const
    {
        std::vector<nlohmann::json> out;
        for (const auto &r : records)
            if (r.value("t", "") == t)
                out.push_back(r);
        return out;
    }
};

inline Log read(const std::string &path)
{
    Log log;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t pos = 0, lineNo = 0;
    while (pos < text.size()) {
        const size_t nl = text.find('\n', pos);
        ++lineNo;
        if (nl == std::string::npos) { // no newline: a torn last line
            log.tornLastLine = true;
            break;
        }
        const std::string line = text.substr(pos, nl - pos);
        pos = nl + 1;
        if (line.empty())
            continue;
        try {
            log.records.push_back(nlohmann::json::parse(line));
        } catch (const std::exception &e) {
            log.problems.push_back(path + ":" + std::to_string(lineNo) + ": " + e.what());
        }
    }
    // Nesting per tid.
    std::map<int64_t, std::vector<std::string>> open;
    for (const auto &r : log.records) {
        const std::string t = r.value("t", "");
        if (t == "B") {
            open[r["tid"].get<int64_t>()].push_back(r["name"].get<std::string>());
        } else if (t == "E") {
            auto &st = open[r["tid"].get<int64_t>()];
            if (st.empty() || st.back() != r["name"].get<std::string>())
                log.problems.push_back("misnested E " + r.dump());
            else
                st.pop_back();
        }
    }
    return log;
}

} // namespace testlog
