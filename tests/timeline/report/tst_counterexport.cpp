// Exports of counters and async events, on real files through JobLoader:
//  - Chrome JSON: counters as C events and async lanes as b/e/n; re-imported, the same counter
//    series (labels, values, times exact to the ns) and the same async spans in the same lanes;
//  - the counters CSV (`--counters-csv`): its exact header and rows;
//  - the events CSV keeps its header (a contract) and has no counter rows; stats count events
//    only (a counter is no event name).
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"
#include "timeline/report/chromeexporter.h"
#include "timeline/report/countercsvexporter.h"
#include "timeline/report/csvexporter.h"
#include "timeline/report/stats.h"

#include <QtTest>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace syncline;

namespace {

std::shared_ptr<Timeline> load(const std::vector<std::string> &paths)
{
    LoadOptions o;
    o.paths = paths;
    return JobLoader::load(o).timeline;
}

std::string counterLine(int64_t ts, const std::string &name, const std::string &value)
{
    return "{\"t\":\"C\",\"ts\":" + std::to_string(ts) + ",\"tid\":1,\"name\":\"" + name +
           "\",\"value\":" + value + "}\n";
}

// A Chrome trace with async spans of two cats (overlapping in one), a counter with two keys.
std::string asyncTrace()
{
    return R"({"traceEvents": [
{"ph": "X", "name": "step", "pid": 1, "tid": 1, "ts": 100.0, "dur": 900.0},
{"ph": "b", "cat": "comm", "name": "send", "id": 1, "pid": 1, "tid": 1, "ts": 110.5},
{"ph": "e", "cat": "comm", "name": "send", "id": 1, "pid": 1, "tid": 1, "ts": 400.25},
{"ph": "b", "cat": "comm", "name": "recv", "id": 2, "pid": 1, "tid": 1, "ts": 300, "args": {"peer": 3}},
{"ph": "e", "cat": "comm", "name": "recv", "id": 2, "pid": 1, "tid": 1, "ts": 700},
{"ph": "n", "cat": "comm", "name": "mark", "id": 2, "pid": 1, "tid": 1, "ts": 500},
{"ph": "b", "cat": "io", "name": "read", "id": 1, "pid": 1, "tid": 1, "ts": 150},
{"ph": "C", "name": "mem", "pid": 1, "ts": 100, "args": {"used": 10, "free": 90}},
{"ph": "C", "name": "mem", "pid": 1, "ts": 600.001, "args": {"used": 55.5, "free": 44.5}}
]})";
}

struct Span
{
    std::string lane, name;
    int64_t start, end;
    uint16_t flags;
    bool operator==(const Span &) const = default;
};

std::vector<Span> asyncSpans(const Timeline &tl, int64_t origin)
{
    std::vector<Span> out;
    for (size_t w = 0; w < tl.workers.size(); ++w)
        for (size_t t = 0; t < tl.workers[w].tracks.size(); ++t) {
            const EventTrack &tr = tl.workers[w].tracks[t];
            if (!tr.async)
                continue;
            const std::string lane = tr.threadName.substr(tr.threadName.find(" / "));
            for (size_t i = 0; i < tr.count(); ++i)
                out.push_back({lane, std::string(tl.names.name(tr.nameId[i])),
                               tl.startNs(w, t, i, ClockMode::Corrected) - origin,
                               tl.endNs(w, t, i, ClockMode::Corrected) - origin,
                               uint16_t(tr.flags[i] & (EventOpen | EventInstant))});
        }
    return out;
}

} // namespace

class TstCounterExport : public QObject
{
    Q_OBJECT
private slots:
    void chromeRoundTrip();
    void countersCsvAndContracts();
};

void TstCounterExport::chromeRoundTrip()
{
    QTemporaryDir dir;
    const std::string trace = dir.path().toStdString() + "/trace.json";
    testlogs::write(trace, asyncTrace());
    auto tl = load({trace});
    QVERIFY(tl);
    QCOMPARE(tl->workers.size(), size_t(1));
    const Worker &w = tl->workers[0];
    QCOMPARE(w.counters.size(), size_t(2));
    const std::vector<Span> spans = asyncSpans(*tl, tl->originNs(ClockMode::Corrected));
    QCOMPARE(spans.size(), size_t(4));

    const std::string out = dir.path().toStdString() + "/export.json";
    std::string error;
    QVERIFY2(ChromeExporter::writeFile(*tl, ClockMode::Corrected, out, &error), error.c_str());
    std::ifstream in(out);
    const auto doc = nlohmann::json::parse(in); // valid JSON
    std::map<std::string, int> phases;
    for (const auto &e : doc["traceEvents"])
        ++phases[e["ph"].get<std::string>()];
    QCOMPARE(phases["C"], 4); // 2 samples × 2 series
    QCOMPARE(phases["b"], 3); // send, recv, read (open) ...
    QCOMPARE(phases["e"], 2); // ... the open one has no e
    QCOMPARE(phases["n"], 1);

    auto back = load({out});
    QVERIFY(back);
    const Worker &b = back->workers[0];
    QCOMPARE(b.counters.size(), w.counters.size());
    const int64_t o1 = tl->originNs(ClockMode::Corrected),
                  o2 = back->originNs(ClockMode::Corrected);
    for (size_t k = 0; k < w.counters.size(); ++k) {
        QCOMPARE(b.counters[k].label(), w.counters[k].label());
        QCOMPARE(b.counters[k].value, w.counters[k].value);
        for (size_t i = 0; i < w.counters[k].count(); ++i)
            QCOMPARE(back->toGlobal(0, b.counters[k].localTs[i], ClockMode::Corrected) - o2,
                     tl->toGlobal(0, w.counters[k].localTs[i], ClockMode::Corrected) - o1);
    }
    std::vector<Span> again = asyncSpans(*back, o2);
    // The open span ends at the end of data in both (the export's end of data is the same).
    QCOMPARE(again.size(), spans.size());
    for (size_t i = 0; i < spans.size(); ++i) {
        QCOMPARE(again[i].name, spans[i].name);
        QCOMPARE(again[i].start, spans[i].start);
        QCOMPARE(again[i].flags, spans[i].flags);
        if (!(spans[i].flags & EventOpen))
            QCOMPARE(again[i].end, spans[i].end);
        QCOMPARE(again[i].lane.substr(again[i].lane.find("async")),
                 spans[i].lane.substr(spans[i].lane.find("async")));
    }
}

void TstCounterExport::countersCsvAndContracts()
{
    QTemporaryDir dir;
    const std::string log = dir.path().toStdString() + "/timer_events.0.log";
    testlogs::write(
        log, testlogs::header(0, 0, "node,a") + testlogs::begin(2000, 1, "step") +
                 counterLine(2500, "loss", "0.1") + counterLine(2600, "gpu_mem", "1073741824") +
                 counterLine(2700, "loss", "0.30000000000000004") + testlogs::end(3000, 1, "step"));
    auto tl = load({log});
    QVERIFY(tl);
    std::ostringstream csv;
    QCOMPARE(CounterCsvExporter::write(*tl, ClockMode::Corrected, csv), int64_t(3));
    // origin = the step's start (2000 local → global through the raw anchor map; offsets
    // relative to it are the local differences).
    QCOMPARE(csv.str(), std::string("rank,restart,host,pid,counter,series,time_ns,local_ns,value\n"
                                    "0,0,\"node,a\",100,gpu_mem,,600,2600,1073741824\n"
                                    "0,0,\"node,a\",100,loss,,500,2500,0.1\n"
                                    "0,0,\"node,a\",100,loss,,700,2700,0.30000000000000004\n"));
    std::ostringstream events;
    QCOMPARE(CsvExporter::write(*tl, ClockMode::Corrected, events), int64_t(1));
    QCOMPARE(events.str().substr(0, events.str().find('\n')), std::string(CsvExporter::kHeader));
    QCOMPARE(std::string(CsvExporter::kHeader),
             std::string("rank,restart,host,pid,tid,name,depth,start_ns,end_ns,duration_ns,"
                         "local_start_ns,local_end_ns,status"));
    for (const StatsRow &r : Stats::compute(*tl))
        QCOMPARE(std::string(tl->names.name(r.nameId)), std::string("step"));
    // A range keeps the samples inside it only.
    std::ostringstream ranged;
    const int64_t o = tl->originNs(ClockMode::Corrected);
    QCOMPARE(CounterCsvExporter::write(*tl, ClockMode::Corrected, ranged, {true, o + 550, o + 700}),
             int64_t(2));
}

QTEST_APPLESS_MAIN(TstCounterExport)
#include "tst_counterexport.moc"
