// CounterCsvExporter — see countercsvexporter.h.
#include "timeline/report/countercsvexporter.h"

#include "timeline/report/csvtable.h"

namespace syncline {

int64_t CounterCsvExporter::write(const Timeline &tl, ClockMode mode, std::ostream &out,
                                  const EventRange &range)
{
    CsvTable table(tl, mode, out, kHeader);
    TextWriter &w = table.writer();
    const int64_t origin = table.originNs();
    table.forEachWorker([&](const Worker &worker, const sync::ClockMap &map) {
        for (const CounterTrack &c : worker.counters) {
            for (size_t i = 0; i < c.count(); ++i) {
                const int64_t g = map.toGlobal(c.localTs[i]);
                if (range.use && (g < range.beginNs || g > range.endNs))
                    continue;
                table.beginRow(worker);
                w.num(c.pid) << ',';
                w.csvField(c.name) << ',';
                w.csvField(c.series) << ',';
                w.num(g - origin) << ',';
                w.num(c.localTs[i]) << ',';
                w.numExact(c.value[i]);
                table.endRow(worker);
            }
        }
    });
    return table.rows();
}

bool CounterCsvExporter::writeFile(const Timeline &tl, ClockMode mode, const std::string &path,
                                   const EventRange &range, std::string *error)
{
    return TextWriter::toFile(path, error, [&](std::ostream &out) { write(tl, mode, out, range); });
}

} // namespace syncline
