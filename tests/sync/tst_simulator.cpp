// Tests for the simulator: determinism (same seed → identical job and identical files), the log
// files follow docs/log-format.md v1 (parsed here with nlohmann_json), sync records round-trip to
// the in-memory samples, and the truth files describe every event.
#include "sim/joblogwriter.h"
#include "sim/simulator.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>

using namespace syncline;

namespace {

std::string slurp(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

sim::SimConfig smallConfig(uint64_t seed, sim::Regime r = sim::Regime::Stress)
{
    sim::SimConfig c = sim::configFor(r, seed, 4, 30.0);
    c.workersPerHost = 2;
    c.stepsPerHour = 200; // make steps likely in 30 s
    return c;
}

} // namespace

class TstSimulator : public QObject
{
    Q_OBJECT
private slots:
    void deterministic();
    void seedsDiffer();
    void logsFollowFormat();
    void regimes();
};

void TstSimulator::deterministic()
{
    const sim::SimJob a = sim::Simulator::run(smallConfig(5));
    const sim::SimJob b = sim::Simulator::run(smallConfig(5));
    QTemporaryDir da, db;
    QVERIFY(da.isValid() && db.isValid());
    QCOMPARE(QString::fromStdString(sim::JobLogWriter::write(a, da.path().toStdString())),
             QString());
    QCOMPARE(QString::fromStdString(sim::JobLogWriter::write(b, db.path().toStdString())),
             QString());
    for (const char *f : {"timer_events.0.log", "timer_events.3.log", "truth_events.csv",
                          "truth_clock.csv", "truth_workers.csv", "truth_steps.csv"}) {
        const std::string x = slurp(da.path().toStdString() + "/" + f);
        QVERIFY2(!x.empty(), f);
        QVERIFY2(x == slurp(db.path().toStdString() + "/" + f), f);
    }
}

void TstSimulator::seedsDiffer()
{
    const sim::SimJob a = sim::Simulator::run(smallConfig(5));
    const sim::SimJob b = sim::Simulator::run(smallConfig(6));
    QVERIFY(a.workers[0].samples[0].t1 != b.workers[0].samples[0].t1);
}

void TstSimulator::logsFollowFormat()
{
    const sim::SimJob job = sim::Simulator::run(smallConfig(9));
    QTemporaryDir dir;
    QCOMPARE(QString::fromStdString(sim::JobLogWriter::write(job, dir.path().toStdString())),
             QString());
    for (const sim::SimWorker &w : job.workers) {
        std::ifstream f(dir.path().toStdString() + "/" + sim::JobLogWriter::logFileName(w.rank));
        std::string line;
        int lineNo = 0, syncCount = 0, begins = 0;
        bool closed = false;
        std::map<int64_t, std::vector<std::string>> open; // per tid
        std::map<int64_t, int64_t> lastTs;
        while (std::getline(f, line)) {
            ++lineNo;
            const nlohmann::json j = nlohmann::json::parse(line); // throws on invalid JSON
            const std::string t = j.at("t");
            QVERIFY2(line.rfind("{\"t\":", 0) == 0, "\"t\" must come first");
            QVERIFY(!closed);
            if (lineNo == 1) {
                QCOMPARE(t, std::string("header"));
                QCOMPARE(j.at("version").get<int>(), 1);
                QCOMPARE(j.at("rank").get<int>(), w.rank);
                QCOMPARE(j.at("host").get<std::string>(), job.hostNames[size_t(w.host)]);
                QCOMPARE(j.at("boot_id").get<std::string>(), job.bootIds[size_t(w.host)]);
                QVERIFY(j.at("anchor").contains("mono_ns"));
                continue;
            }
            if (t == "B" || t == "E") {
                const int64_t tid = j.at("tid"), ts = j.at("ts");
                QVERIFY(ts >= lastTs[tid]); // per thread, in order
                lastTs[tid] = ts;
                if (t == "B") {
                    open[tid].push_back(j.at("name"));
                    ++begins;
                } else {
                    QVERIFY(!open[tid].empty());
                    QCOMPARE(open[tid].back(), j.at("name").get<std::string>());
                    open[tid].pop_back();
                }
            } else if (t == "sync") {
                const sync::ClockSample &s = w.samples[size_t(syncCount++)];
                QCOMPARE(j.at("t1").get<int64_t>(), s.t1);
                QCOMPARE(j.at("t4").get<int64_t>(), s.t4);
                QCOMPARE(j.at("burst").get<int>(), s.burst);
            } else if (t == "close") {
                closed = true;
                QCOMPARE(j.at("open").get<int>(), 0);
            } else {
                QVERIFY2(t == "thread" || t == "msg" || t == "hb", t.c_str());
            }
        }
        QVERIFY(closed);
        QCOMPARE(syncCount, int(w.samples.size()));
        QCOMPARE(begins, int(w.events.size()));
        for (const auto &[tid, stack] : open)
            QVERIFY(stack.empty());
    }
    // truth_events.csv: one row per event plus the header.
    std::ifstream truth(dir.path().toStdString() + "/truth_events.csv");
    size_t rows = 0, events = 0;
    for (std::string l; std::getline(truth, l);)
        ++rows;
    for (const sim::SimWorker &w : job.workers)
        events += w.events.size();
    QCOMPARE(rows, events + 1);
}

void TstSimulator::regimes()
{
    QVERIFY(sim::parseRegime("rdma").has_value());
    QVERIFY(!sim::parseRegime("nope").has_value());
    QCOMPARE(sim::configFor(sim::Regime::Sparse, 1, 8, 60).burstIntervalS, 60.0);
    QCOMPARE(sim::configFor(sim::Regime::Rdma, 1, 8, 60).floorNs, 100.0);
    QCOMPARE(sim::configFor(sim::Regime::Stress, 1, 8, 60).outlierRate, 0.10);
}

QTEST_APPLESS_MAIN(TstSimulator)
#include "tst_simulator.moc"
