// fuzz_chrometrace — ChromeTraceParser (simdjson on-demand, the truncated-array repair, B/E
// matching, metadata) on one file, then the closing rule on its own: whatever closeTruncated()
// salvages must be a prefix of the text plus closing brackets only.
#include "fuzztempfile.h"

#include "timeline/load/parse/chrome/chrometraceparser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

using syncline::load::ChromeTraceParser;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const FuzzTempFile file("trace.rank7.json");
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    file.write(text);
    const auto parsed = ChromeTraceParser::parseFile(file.path());
    if (!parsed.usable && parsed.problems.empty()) {
        std::fprintf(stderr, "fuzz_chrometrace: unusable without a problem\n");
        std::abort();
    }
    for (const auto &t : parsed.worker.tracks)
        if (t.localStart.size() != t.localEnd.size() || t.localStart.size() != t.nameId.size() ||
            t.localStart.size() != t.flags.size()) {
            std::fprintf(stderr, "fuzz_chrometrace: track arrays of different lengths\n");
            std::abort();
        }
    const std::string closed = ChromeTraceParser::closeTruncated(text);
    if (!closed.empty()) {
        size_t keep = 0;
        while (keep < closed.size() && keep < text.size() && closed[keep] == text[keep])
            ++keep;
        for (size_t i = keep; i < closed.size(); ++i)
            if (closed[i] != ']' && closed[i] != '}') {
                std::fprintf(stderr, "fuzz_chrometrace: closeTruncated added more than brackets\n");
                std::abort();
            }
    }
    int64_t ns = 0;
    (void)ChromeTraceParser::microsToNs(text.substr(0, 64), ns);
    return 0;
}
