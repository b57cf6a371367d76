// fuzz_jobload — one input file through the whole loader (JobLoader: admission, sort and nest,
// clock correction, the timeline builder), then what a user reads of it: stats and the
// diagnosis (steps, collective waits, what-if, critical path) in both clock modes and the CSV
// and Chrome exports. Even first byte: the rest is a syncline log; odd: a
// Chrome trace. This is where integer overflow on extreme times (X ts+dur, origins, maps) shows.
#include "fuzztempfile.h"

#include "timeline/load/jobloader.h"
#include "timeline/report/chromeexporter.h"
#include "timeline/report/csvexporter.h"
#include "timeline/report/diagnosis.h"
#include "timeline/report/stats.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>

using namespace syncline;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    static const FuzzTempFile log("timer_events.2.log");
    static const FuzzTempFile trace("trace.rank5.json");
    const bool chrome = data[0] & 1;
    const FuzzTempFile &file = chrome ? trace : log;
    file.write(std::string_view(reinterpret_cast<const char *>(data) + 1, size - 1));
    LoadOptions options;
    options.paths = {file.path()};
    options.threads = 1;
    const LoadResult result = JobLoader::load(options);
    if (!result.timeline) {
        if (result.fatalError.empty()) {
            std::fprintf(stderr, "fuzz_jobload: no timeline and no reason\n");
            std::abort();
        }
        return 0;
    }
    for (const ClockMode mode : {ClockMode::Corrected, ClockMode::Raw}) {
        StatsQuery q;
        q.mode = mode;
        (void)Stats::compute(*result.timeline, q);
        DiagnoseQuery dq;
        dq.mode = mode;
        dq.threads = 1;
        (void)Diagnoser::run(*result.timeline, dq);
        std::ostringstream csv, json;
        CsvExporter::write(*result.timeline, mode, csv);
        ChromeExporter::write(*result.timeline, mode, json);
    }
    return 0;
}
