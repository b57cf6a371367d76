#include "timeline/report/csvexporter.h"

#include "timeline/report/textwriter.h"

namespace syncline {

const char *CsvExporter::status(uint16_t flags)
{
    if (flags & EventOpen)
        return "open";
    if (flags & EventOverdue)
        return "overdue";
    return "complete";
}

int64_t CsvExporter::write(const Timeline &tl, ClockMode mode, std::ostream &out,
                           const EventRange &range)
{
    TextWriter w(out);
    w << kHeader << '\n';
    const int64_t origin = tl.originNs(mode);
    int64_t rows = 0;
    for (size_t wi = 0; wi < tl.workers.size(); ++wi) {
        const Worker &worker = tl.workers[wi];
        const sync::ClockMap &map = tl.map(wi, mode);
        for (const EventTrack &t : worker.tracks) {
            for (size_t i = 0; i < t.count(); ++i) {
                const int64_t gs = map.toGlobal(t.localStart[i]), ge = map.toGlobal(t.localEnd[i]);
                if (range.use && (ge < range.beginNs || gs > range.endNs))
                    continue;
                w.num(int64_t(worker.info.rank)) << ',';
                w.num(int64_t(worker.info.restart)) << ',';
                w.csvField(worker.info.host) << ',';
                w.num(t.pid) << ',';
                w.num(t.tid) << ',';
                w.csvField(tl.names.name(t.nameId[i])) << ',';
                w.num(int64_t(t.depth[i])) << ',';
                w.num(gs - origin) << ',';
                w.num(ge - origin) << ',';
                w.num(ge - gs) << ',';
                w.num(t.localStart[i]) << ',';
                w.num(t.localEnd[i]) << ',';
                w << status(t.flags[i]) << '\n';
                ++rows;
            }
        }
    }
    return rows;
}

bool CsvExporter::writeFile(const Timeline &tl, ClockMode mode, const std::string &path,
                            const EventRange &range,
                            std::string *error)
{
    return TextWriter::toFile(path, error, [&](std::ostream &out) { write(tl, mode, out, range); });
}

} // namespace syncline
