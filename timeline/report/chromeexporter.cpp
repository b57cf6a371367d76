#include "timeline/report/chromeexporter.h"

#include "timeline/report/textwriter.h"

#include <vector>

namespace syncline {

namespace {

void metadata(TextWriter &w, const char *name, int64_t pid, int64_t tid, const std::string &key,
              bool text, const std::string &value, int64_t number)
{
    w << ",\n{\"ph\":\"M\",\"name\":\"" << name << "\",\"pid\":";
    w.num(pid) << ",\"tid\":";
    w.num(tid) << ",\"args\":{\"" << key << "\":";
    if (text)
        w.jsonString(value);
    else
        w.num(number);
    w << "}}";
}

void event(TextWriter &w, const Timeline &tl, const EventTrack &t, size_t i, int64_t pid,
           int64_t tid, const sync::ClockMap &map, int64_t origin)
{
    const int64_t gs = map.toGlobal(t.localStart[i]);
    const uint16_t f = t.flags[i];
    const bool instant = f & EventInstant;
    w << ",\n{\"ph\":\"" << (instant ? "i" : "X") << "\",\"name\":";
    w.jsonString(tl.names.name(t.nameId[i]));
    w << ",\"cat\":\""
      << ((f & EventOpen)      ? "open"
          : (f & EventOverdue) ? "overdue"
                               : "syncline")
      << "\",\"pid\":";
    w.num(pid) << ",\"tid\":";
    w.num(tid) << ",\"ts\":";
    w.micros(gs - origin);
    if (instant) {
        w << ",\"s\":\"t\"";
    } else {
        w << ",\"dur\":";
        w.micros(map.toGlobal(t.localEnd[i]) - gs);
    }
    const int64_t args = (f & EventHasArgs) ? t.argsId(uint32_t(i)) : -1;
    if (args >= 0) {
        w << ",\"args\":";
        w.utf8Text(tl.args[size_t(args)]);
    }
    w << '}';
}

// An async lane's event: b + e (open: b only, the reader keeps it open), n for an instant; one
// id per tree, so a reader groups them by (pid, cat) again and re-lays the lanes out.
void asyncEvent(TextWriter &w, const Timeline &tl, const EventTrack &t, size_t i, int64_t pid,
                int64_t tid, const sync::ClockMap &map, int64_t origin, int64_t id)
{
    const uint16_t f = t.flags[i];
    const int64_t args = (f & EventHasArgs) ? t.argsId(uint32_t(i)) : -1;
    auto one = [&](const char *ph, int64_t local, bool withArgs) {
        w << ",\n{\"ph\":\"" << ph << "\",\"name\":";
        w.jsonString(tl.names.name(t.nameId[i]));
        w << ",\"cat\":";
        w.jsonString(t.category);
        w << ",\"id\":";
        w.num(id) << ",\"pid\":";
        w.num(pid) << ",\"tid\":";
        w.num(tid) << ",\"ts\":";
        w.micros(map.toGlobal(local) - origin);
        if (withArgs && args >= 0) {
            w << ",\"args\":";
            w.utf8Text(tl.args[size_t(args)]);
        }
        w << '}';
    };
    if (f & EventInstant) {
        one("n", t.localStart[i], true);
        return;
    }
    one("b", t.localStart[i], true);
    if (!(f & EventOpen))
        one("e", t.localEnd[i], false);
}

// A counter series: one C event per sample, args {series: value} (the name when a log's counter
// has no series key, so it reads back with the same label).
void counterEvents(TextWriter &w, const CounterTrack &c, int64_t pid, const sync::ClockMap &map,
                   int64_t origin)
{
    const std::string &key = c.series.empty() ? c.name : c.series;
    for (size_t i = 0; i < c.count(); ++i) {
        w << ",\n{\"ph\":\"C\",\"name\":";
        w.jsonString(c.name);
        if (!c.category.empty()) {
            w << ",\"cat\":";
            w.jsonString(c.category);
        }
        w << ",\"pid\":";
        w.num(pid) << ",\"ts\":";
        w.micros(map.toGlobal(c.localTs[i]) - origin);
        w << ",\"args\":{";
        w.jsonString(key) << ':';
        w.numExact(c.value[i]) << "}}";
    }
}

} // namespace

int64_t ChromeExporter::write(const Timeline &tl, ClockMode mode, std::ostream &out)
{
    TextWriter w(out);
    w << "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"syncline_origin_ns\":";
    w.num(tl.originNs(mode)) << ",\"clock_mode\":\""
                             << (mode == ClockMode::Corrected ? "corrected" : "raw")
                             << "\"},\n\"traceEvents\":[\n";
    w << "{\"ph\":\"M\",\"name\":\"syncline\",\"pid\":0,\"tid\":0,\"args\":{}}";
    int64_t n = 0, asyncId = 0;
    for (size_t wi = 0; wi < tl.workers.size(); ++wi) {
        const Worker &worker = tl.workers[wi];
        const int64_t pid = int64_t(wi) + 1;
        std::string label = "rank " + std::to_string(worker.info.rank);
        if (!worker.info.host.empty())
            label += " (" + worker.info.host + ")";
        if (worker.info.restart > 0)
            label += ", restart " + std::to_string(worker.info.restart);
        metadata(w, "process_name", pid, 0, "name", true, label, 0);
        metadata(w, "process_sort_index", pid, 0, "sort_index", false, {}, worker.info.rank);
        for (size_t ti = 0; ti < worker.tracks.size(); ++ti) {
            const EventTrack &t = worker.tracks[ti];
            const int64_t tid = int64_t(ti) + 1;
            if (t.async) { // async lanes are not threads: no thread metadata
                // One id per tree (a root and what nests in it): it reads back as one tree.
                std::vector<int64_t> idOf(t.count());
                for (size_t i = 0; i < t.count(); ++i, ++n) {
                    const int32_t parent = i < t.parent.size() ? t.parent[i] : -1;
                    idOf[i] = parent < 0 ? ++asyncId : idOf[size_t(parent)];
                    asyncEvent(w, tl, t, i, pid, tid, tl.map(wi, mode), tl.originNs(mode), idOf[i]);
                }
                continue;
            }
            metadata(w, "thread_name", pid, tid, "name", true,
                     t.threadName.empty() ? "tid " + std::to_string(t.tid) : t.threadName, 0);
            metadata(w, "thread_sort_index", pid, tid, "sort_index", false, {}, tid);
            for (size_t i = 0; i < t.count(); ++i, ++n)
                event(w, tl, t, i, pid, tid, tl.map(wi, mode), tl.originNs(mode));
        }
        for (const CounterTrack &c : worker.counters)
            counterEvents(w, c, pid, tl.map(wi, mode), tl.originNs(mode));
    }
    for (const FlowPoint &f : tl.flows) {
        w << ",\n{\"ph\":\"" << std::string_view(&f.phase, 1) << "\",\"id\":";
        w.num(int64_t(f.id & 0x7fffffffffffffffULL)) << ",\"name\":";
        w.jsonString(tl.names.name(f.nameId)) << ",\"cat\":";
        w.jsonString(tl.names.name(f.categoryId)) << ",\"pid\":";
        w.num(int64_t(f.worker) + 1) << ",\"tid\":";
        w.num(int64_t(f.track) + 1) << ",\"ts\":";
        w.micros(tl.toGlobal(f.worker, f.localNs, mode) - tl.originNs(mode));
        if (f.bindEnclosing)
            w << ",\"bp\":\"e\"";
        w << '}';
    }
    w << "\n]}\n";
    return n;
}

bool ChromeExporter::writeFile(const Timeline &tl, ClockMode mode, const std::string &path,
                               std::string *error)
{
    return TextWriter::toFile(path, error, [&](std::ostream &out) { write(tl, mode, out); });
}

} // namespace syncline
