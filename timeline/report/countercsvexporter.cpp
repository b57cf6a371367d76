// CounterCsvExporter — see countercsvexporter.h.
#include "timeline/report/countercsvexporter.h"

#include "timeline/report/textwriter.h"

namespace syncline {

int64_t CounterCsvExporter::write(const Timeline &tl, ClockMode mode, std::ostream &out,
                                  const EventRange &range)
{
    TextWriter w(out);
    w << kHeader << '\n';
    const int64_t origin = tl.originNs(mode);
    int64_t rows = 0;
    for (size_t wi = 0; wi < tl.workers.size(); ++wi) {
        const Worker &worker = tl.workers[wi];
        const sync::ClockMap &map = tl.map(wi, mode);
        for (const CounterTrack &c : worker.counters) {
            for (size_t i = 0; i < c.count(); ++i) {
                const int64_t g = map.toGlobal(c.localTs[i]);
                if (range.use && (g < range.beginNs || g > range.endNs))
                    continue;
                w.num(int64_t(worker.info.rank)) << ',';
                w.num(int64_t(worker.info.restart)) << ',';
                w.csvField(worker.info.host) << ',';
                w.num(c.pid) << ',';
                w.csvField(c.name) << ',';
                w.csvField(c.series) << ',';
                w.num(g - origin) << ',';
                w.num(c.localTs[i]) << ',';
                w.numExact(c.value[i]) << '\n';
                ++rows;
            }
        }
    }
    return rows;
}

bool CounterCsvExporter::writeFile(const Timeline &tl, ClockMode mode, const std::string &path,
                                   const EventRange &range, std::string *error)
{
    return TextWriter::toFile(path, error, [&](std::ostream &out) { write(tl, mode, out, range); });
}

} // namespace syncline
