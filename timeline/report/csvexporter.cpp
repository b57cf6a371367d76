#include "timeline/report/csvexporter.h"

#include "timeline/report/csvtable.h"

namespace syncline {

const char *CsvExporter::status(uint16_t flags)
{
    if (flags & EventOpen)
        return "open";
    if (flags & EventOverdue)
        return "overdue";
    return "complete";
}

namespace {

int64_t rows(CsvTable &table, const Timeline &tl, const EventRange &range)
{
    TextWriter &w = table.writer();
    const int64_t origin = table.originNs();
    table.forEachWorker([&](const Worker &worker, const sync::ClockMap &map) {
        for (const EventTrack &t : worker.tracks) {
            for (size_t i = 0; i < t.count(); ++i) {
                const int64_t gs = map.toGlobal(t.localStart[i]), ge = map.toGlobal(t.localEnd[i]);
                if (range.use && (ge < range.beginNs || gs > range.endNs))
                    continue;
                table.beginRow(worker);
                w.num(t.pid) << ',';
                w.num(t.tid) << ',';
                w.csvField(tl.names.name(t.nameId[i])) << ',';
                w.num(int64_t(t.depth[i])) << ',';
                w.num(gs - origin) << ',';
                w.num(ge - origin) << ',';
                w.num(ge - gs) << ',';
                w.num(t.localStart[i]) << ',';
                w.num(t.localEnd[i]) << ',';
                w << CsvExporter::status(t.flags[i]);
                table.endRow(worker);
            }
        }
    });
    return table.rows();
}

} // namespace

int64_t CsvExporter::write(const Timeline &tl, ClockMode mode, std::ostream &out,
                           const EventRange &range)
{
    CsvTable table(tl, mode, out, kHeader);
    return rows(table, tl, range);
}

int64_t CsvExporter::writeRows(const Timeline &tl, ClockMode mode, std::ostream &out,
                               const EventRange &range, int64_t originNs)
{
    CsvTable table(tl, mode, out, originNs);
    return rows(table, tl, range);
}

bool CsvExporter::writeFile(const Timeline &tl, ClockMode mode, const std::string &path,
                            const EventRange &range, std::string *error)
{
    return TextWriter::toFile(path, error, [&](std::ostream &out) { write(tl, mode, out, range); });
}

} // namespace syncline
