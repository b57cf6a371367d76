// fuzz_linescanner — LineScanner (the log's bulk JSON line scanner, with its byte-exact fast
// path for the recorder's own layout) against nlohmann_json as the reference JSON parser: every
// line the scanner accepts must be a JSON object (invalid UTF-8 inside strings aside: the scanner
// does not validate UTF-8, the loader's exports do), and the fields it decoded (t, ts, tid, dur,
// name) must equal the object's when that key occurs once. A line with a number nlohmann cannot
// hold (past double's range: valid JSON, its out_of_range 406) or a lone surrogate escape
// (`\udfff`: valid JSON text, refused by nlohmann, read as U+FFFD by the scanner) has no
// reference and is skipped.
#include "timeline/load/parse/log/linescanner.h"

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

struct KeyCounts
{
    int t = 0, ts = 0, tid = 0, dur = 0, name = 0;
};

// How often each decoded key occurs in the top-level object (nlohmann keeps the last one).
KeyCounts keyCounts(std::string_view line)
{
    KeyCounts k;
    auto cb = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json &parsed) {
        if (ev == nlohmann::json::parse_event_t::key && depth == 1 && parsed.is_string()) {
            const auto &key = parsed.get_ref<const std::string &>();
            k.t += key == "t";
            k.ts += key == "ts";
            k.tid += key == "tid";
            k.dur += key == "dur";
            k.name += key == "name";
        }
        return true;
    };
    try {
        (void)nlohmann::json::parse(line.begin(), line.end(), cb);
    } catch (...) {
    }
    return k;
}

void checkInt(std::string_view line, const nlohmann::json &j, const char *key, int count, bool has,
              int64_t value)
{
    if (!has || count != 1)
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
    // The first 16 lines: enough to reach every state of the scanner, cheap enough per input.
    for (int lines = 0; pos <= input.size() && lines < 16; ++lines) {
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
            const std::string_view what(e.what());
            if (what.find("UTF-8") != std::string_view::npos)
                continue; // the scanner leaves UTF-8 checks to the loader and the exporters
            // A `\u` escape of a lone surrogate: valid JSON text that nlohmann refuses; the
            // scanner reads it as U+FFFD (log-format.md), so there is nothing to compare with.
            if (what.find("surrogate") != std::string_view::npos)
                continue;
            mismatch("accepted a line that is not JSON", line);
        } catch (const nlohmann::json::out_of_range &) {
            // Valid JSON the reference cannot hold (a number past double, `1E789`: its error
            // 406): nothing to compare the scanner's fields with.
            continue;
        }
        if (!j.is_object())
            mismatch("accepted a line that is not an object", line);
        const KeyCounts k = keyCounts(line);
        if (r.hasType && k.t == 1 && !j.at("t").is_string())
            mismatch("t", line);
        checkInt(line, j, "ts", k.ts, r.hasTs, r.ts);
        checkInt(line, j, "tid", k.tid, r.hasTid, r.tid);
        checkInt(line, j, "dur", k.dur, r.hasDur, r.dur);
        if (r.hasName && k.name == 1 &&
            (!j.at("name").is_string() || j.at("name").get<std::string>() != r.name))
            mismatch("name", line);
    }
    return 0;
}
