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

StatsWorker StatsWorker::of(const Worker &wk)
{
    StatsWorker s;
    s.rank = wk.info.rank;
    s.restart = wk.info.restart;
    s.worldSize = wk.info.worldSize;
    s.pid = wk.info.pid;
    s.closed = wk.info.closedCleanly;
    s.host = wk.info.host;
    s.sourceFile = wk.info.sourceFile;
    s.events = int64_t(wk.eventCount());
    s.offsetNs = wk.clock.offsetNs;
    s.driftPpm = wk.clock.driftPpm;
    s.boundNs = wk.clock.boundNs;
    s.method = sync::methodName(wk.clock.method);
    s.medianBoundNs = EventBounds::medianNs(wk);
    s.wallUsed = wk.wall.used;
    s.wallVerdict = sync::wallVerdictName(wk.wall.verdict);
    s.wallReason = wk.wall.reason;
    s.wallOffsetNs = wk.wall.offsetNs;
    s.wallBandNs = wk.wall.bandNs;
    return s;
}

void StatsExporter::writeJson(const Timeline &tl, const std::vector<StatsRow> &rows,
                              std::ostream &out)
{
    std::vector<StatsWorker> workers;
    workers.reserve(tl.workers.size());
    for (const Worker &wk : tl.workers)
        workers.push_back(StatsWorker::of(wk));
    std::vector<std::string> names(tl.names.size());
    for (uint32_t id = 0; id < names.size(); ++id)
        names[id] = std::string(tl.names.name(id));
    writeJson(workers, names, rows, out);
}

void StatsExporter::writeJson(const std::vector<StatsWorker> &workers,
                              const std::vector<std::string> &names,
                              const std::vector<StatsRow> &rows, std::ostream &out)
{
    TextWriter w(out);
    w << "{\"workers\": [";
    for (size_t i = 0; i < workers.size(); ++i) {
        const StatsWorker &wk = workers[i];
        w << (i ? ",\n  " : "\n  ") << "{\"rank\": ";
        w.num(int64_t(wk.rank)) << ", \"restart\": ";
        w.num(int64_t(wk.restart)) << ", \"world_size\": ";
        w.num(int64_t(wk.worldSize)) << ", \"pid\": ";
        w.num(wk.pid) << ", \"closed\": " << (wk.closed ? "true" : "false") << ", \"host\": ";
        w.jsonString(wk.host) << ", \"events\": ";
        w.num(wk.events) << ", \"clock\": {\"offset_ns\": ";
        w.num(wk.offsetNs) << ", \"drift_ppm\": ";
        w.num(wk.driftPpm) << ", \"bound_ns\": ";
        w.num(wk.boundNs) << ", \"method\": ";
        w.jsonString(wk.method) << ", \"median_bound_ns\": ";
        w.num(wk.medianBoundNs) << ", \"wall_used\": ";
        w << (wk.wallUsed ? "true" : "false") << ", \"wall_verdict\": ";
        w.jsonString(wk.wallVerdict) << ", \"wall_offset_ns\": ";
        w.num(wk.wallOffsetNs) << ", \"wall_band_ns\": ";
        w.num(wk.wallBandNs) << ", \"wall_reason\": ";
        w.jsonString(wk.wallReason) << "}}";
    }
    w << "],\n \"events\": [";
    for (size_t i = 0; i < rows.size(); ++i) {
        const StatsRow &r = rows[i];
        w << (i ? ",\n  " : "\n  ") << "{\"name\": ";
        w.jsonString(names[r.nameId]) << ", \"rank\": ";
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
