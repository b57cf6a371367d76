#include "timeline/report/statsexporter.h"

#include "timeline/report/eventbounds.h"
#include "timeline/report/textwriter.h"

namespace syncline {

void StatsExporter::writeCsv(const Timeline &tl, const std::vector<StatsRow> &rows,
                             std::ostream &out)
{
    TextWriter w(out);
    w << "name,rank,count,total_ns,mean_ns,p50_ns,p95_ns,p99_ns,max_ns\n";
    for (const StatsRow &r : rows) {
        w.csvField(tl.names.name(r.nameId)) << ',';
        if (r.rank)
            w.num(int64_t(*r.rank));
        w << ',';
        for (int64_t v : {r.count, r.totalNs, r.meanNs, r.p50Ns, r.p95Ns, r.p99Ns})
            w.num(v) << ',';
        w.num(r.maxNs) << '\n';
    }
}

void StatsExporter::writeJson(const Timeline &tl, const std::vector<StatsRow> &rows,
                              std::ostream &out)
{
    TextWriter w(out);
    w << "{\"workers\": [";
    for (size_t i = 0; i < tl.workers.size(); ++i) {
        const Worker &wk = tl.workers[i];
        w << (i ? ",\n  " : "\n  ") << "{\"rank\": ";
        w.num(int64_t(wk.info.rank)) << ", \"restart\": ";
        w.num(int64_t(wk.info.restart)) << ", \"world_size\": ";
        w.num(int64_t(wk.info.worldSize)) << ", \"pid\": ";
        w.num(wk.info.pid) << ", \"closed\": " << (wk.info.closedCleanly ? "true" : "false")
                           << ", \"host\": ";
        w.jsonString(wk.info.host) << ", \"events\": ";
        w.num(int64_t(wk.eventCount())) << ", \"clock\": {\"offset_ns\": ";
        w.num(wk.clock.offsetNs) << ", \"drift_ppm\": ";
        w.num(wk.clock.driftPpm) << ", \"bound_ns\": ";
        w.num(wk.clock.boundNs) << ", \"method\": ";
        w.jsonString(sync::methodName(wk.clock.method)) << ", \"median_bound_ns\": ";
        w.num(EventBounds::medianNs(wk)) << ", \"wall_used\": ";
        w << (wk.wall.used ? "true" : "false") << ", \"wall_verdict\": ";
        w.jsonString(sync::wallVerdictName(wk.wall.verdict)) << ", \"wall_offset_ns\": ";
        w.num(wk.wall.offsetNs) << ", \"wall_band_ns\": ";
        w.num(wk.wall.bandNs) << ", \"wall_reason\": ";
        w.jsonString(wk.wall.reason) << "}}";
    }
    w << "],\n \"events\": [";
    for (size_t i = 0; i < rows.size(); ++i) {
        const StatsRow &r = rows[i];
        w << (i ? ",\n  " : "\n  ") << "{\"name\": ";
        w.jsonString(tl.names.name(r.nameId)) << ", \"rank\": ";
        if (r.rank)
            w.num(int64_t(*r.rank));
        else
            w << "null";
        const std::pair<const char *, int64_t> fields[] = {
            {"count", r.count},  {"total_ns", r.totalNs}, {"mean_ns", r.meanNs},
            {"p50_ns", r.p50Ns}, {"p95_ns", r.p95Ns},     {"p99_ns", r.p99Ns},
            {"max_ns", r.maxNs}};
        for (const auto &[key, value] : fields) {
            w << ", \"" << key << "\": ";
            w.num(value);
        }
        w << '}';
    }
    w << "]}\n";
}

bool StatsExporter::writeCsvFile(const Timeline &tl, const std::vector<StatsRow> &rows,
                                 const std::string &path, std::string *error)
{
    return TextWriter::toFile(path, error, [&](std::ostream &o) { writeCsv(tl, rows, o); });
}

bool StatsExporter::writeJsonFile(const Timeline &tl, const std::vector<StatsRow> &rows,
                                  const std::string &path, std::string *error)
{
    return TextWriter::toFile(path, error, [&](std::ostream &o) { writeJson(tl, rows, o); });
}

} // namespace syncline
