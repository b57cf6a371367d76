// fuzz_linescanner — LineScanner (the log's bulk JSON line scanner, with its byte-exact fast
// path for the recorder's own layout) against nlohmann_json as the reference JSON parser: every
// line the scanner accepts must be a JSON object (invalid UTF-8 inside strings aside: the scanner
// does not validate UTF-8, the loader's exports do), and the fields it decoded (t, ts, tid, dur,
// name) must equal the object's when that key occurs once.
#include "timeline/load/log/linescanner.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using syncline::load::LineScanner;
using syncline::load::LogRecord;

namespace {

[[noreturn]] void mismatch(const char *what, std::string_view line)
{
    std::fprintf(stderr, "fuzz_linescanner: %s: %.*s\n", what,
                 int(std::min<size_t>(line.size(), 400)), line.data());
    std::abort();
}

// How often `key` occurs as a key of the top-level object (nlohmann keeps the last one).
int keyCount(std::string_view line, const std::string &key)
{
    int n = 0;
    auto cb = [&](int d, nlohmann::json::parse_event_t ev, nlohmann::json &parsed) {
        if (ev == nlohmann::json::parse_event_t::key && d == 1 && parsed == key)
            ++n;
        return true;
    };
    try {
        (void)nlohmann::json::parse(line.begin(), line.end(), cb);
    } catch (...) {
    }
    return n;
}

void checkInt(std::string_view line, const nlohmann::json &j, const char *key, bool has,
              int64_t value)
{
    if (!has || keyCount(line, key) != 1)
        return;
    const auto &v = j.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() != value)
        mismatch(key, line);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view input(reinterpret_cast<const char *>(data), size);
    LineScanner scanner;
    LogRecord r;
    size_t pos = 0;
    while (pos <= input.size()) {
        size_t nl = input.find('\n', pos);
        if (nl == std::string_view::npos)
            nl = input.size();
        const std::string_view line = input.substr(pos, nl - pos);
        pos = nl + 1;
        if (!scanner.scan(line, r)) {
            if (scanner.errorColumn() == 0 || scanner.errorColumn() > line.size() + 1)
                mismatch("error column outside the line", line);
            continue;
        }
        nlohmann::json j;
        try {
            j = nlohmann::json::parse(line);
        } catch (const nlohmann::json::parse_error &e) {
            if (std::string_view(e.what()).find("UTF-8") != std::string_view::npos)
                continue; // the one thing the scanner leaves to the exporters
            mismatch("accepted a line that is not JSON", line);
        }
        if (!j.is_object())
            mismatch("accepted a line that is not an object", line);
        if (r.hasType && keyCount(line, "t") == 1 && !j.at("t").is_string())
            mismatch("t", line);
        checkInt(line, j, "ts", r.hasTs, r.ts);
        checkInt(line, j, "tid", r.hasTid, r.tid);
        checkInt(line, j, "dur", r.hasDur, r.dur);
        if (r.hasName && keyCount(line, "name") == 1 &&
            (!j.at("name").is_string() || j.at("name").get<std::string>() != r.name))
            mismatch("name", line);
    }
    return 0;
}
