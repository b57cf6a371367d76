// `syncline compare A B` as a real process: the JSON document (format syncline-compare/1, its
// keys and values), the CSV header and rows, the text summary, anchors, ranks in one run only,
// a real Kineto trace compared with itself, exit statuses and the errors of bad arguments, and
// the --fail-if CI gate on two simulated runs (syncline-sim), one 20 % slower.
#include "tests/common/synclinerun.h"
#include "tests/common/testdata.h"

#include <QDir>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>
#include <sstream>

namespace {

using synclinerun::Run;
using synclinerun::slurp;
using synclinerun::syncline;
using synclinerun::write;

std::string header(int rank, int64_t wallNs)
{
    return R"({"t":"header","format":"syncline","version":1,"rank":)" + std::to_string(rank) +
           R"(,"restart":0,"host":"h","boot_id":"b","pid":7,"clock":"monotonic_raw","anchor":{"mono_ns":0,"wall_ns":)" +
           std::to_string(wallNs) + R"(,"spread_ns":1},"config":null,"start_ns":0})" + "\n";
}

std::string interval(int64_t ts, int64_t dur, const std::string &name)
{
    return R"({"t":"B","ts":)" + std::to_string(ts) + R"(,"tid":1,"name":")" + name + "\"}\n" +
           R"({"t":"E","ts":)" + std::to_string(ts + dur) + R"(,"tid":1,"name":")" + name + "\"}\n";
}

// A: ranks 0 and 1, 4 "train_step"s of 1 ms each (every 2 ms) holding a 300 µs "all_reduce".
// B: ranks 0 and 2 (rank 1 missing, rank 2 new), steps of 1.5 ms holding a 700 µs
// "all_reduce", starting 5 ms later in its own log, recorded 500 s later (wall anchor).
void makeRuns(const QString &a, const QString &b)
{
    QDir().mkpath(a);
    QDir().mkpath(b);
    for (int rank : {0, 1}) {
        std::string log = header(rank, 1700000000000000000LL);
        for (int i = 0; i < 4; ++i) {
            const int64_t t = 1000000 + 2000000LL * i;
            log += R"({"t":"B","ts":)" + std::to_string(t) +
                   R"(,"tid":1,"name":"train_step"})"
                   "\n";
            log += interval(t + 100000, 300000, "all_reduce");
            log += R"({"t":"E","ts":)" + std::to_string(t + 1000000) +
                   R"(,"tid":1,"name":"train_step"})"
                   "\n";
        }
        write(a + QStringLiteral("/timer_events.%1.log").arg(rank), log);
    }
    for (int rank : {0, 2}) {
        std::string log = header(rank, 1700000500000000000LL);
        for (int i = 0; i < 4; ++i) {
            const int64_t t = 6000000 + 2000000LL * i;
            log += R"({"t":"B","ts":)" + std::to_string(t) +
                   R"(,"tid":1,"name":"train_step"})"
                   "\n";
            log += interval(t + 100000, 700000, "all_reduce");
            log += R"({"t":"E","ts":)" + std::to_string(t + 1500000) +
                   R"(,"tid":1,"name":"train_step"})"
                   "\n";
        }
        write(b + QStringLiteral("/timer_events.%1.log").arg(rank), log);
    }
}

} // namespace

class TstCompareCommand : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void jsonDocument();
    void csvFile();
    void textSummary();
    void anchors();
    void sameTraceNoDeltas();
    void errors();
    void openCompareArgumentErrors();
    void failIfGate();
    void failIfErrors();

private:
    QTemporaryDir m_dir;
    QString m_a, m_b;
};

void TstCompareCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_a = m_dir.filePath(QStringLiteral("runA"));
    m_b = m_dir.filePath(QStringLiteral("runB"));
    makeRuns(m_a, m_b);
}

void TstCompareCommand::jsonDocument()
{
    const Run r = syncline({"compare", m_a, m_b, "--json"});
    QCOMPARE(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out); // nothing but the document on stdout
    std::set<std::string> keys;
    for (auto it = j.begin(); it != j.end(); ++it)
        keys.insert(it.key());
    QCOMPARE(keys, (std::set<std::string>{"format", "clock_mode", "a", "b", "ranks", "anchor",
                                          "summary", "deltas"}));
    QCOMPARE(j["format"].get<std::string>(), std::string("syncline-compare/1"));
    QCOMPARE(j["clock_mode"].get<std::string>(), std::string("corrected"));
    QCOMPARE(j["a"]["paths"][0].get<std::string>(), m_a.toStdString());
    QCOMPARE(j["a"]["workers"].get<int>(), 2);
    QCOMPARE(j["a"]["events"].get<int>(), 16);
    QCOMPARE(j["a"]["ranks"], nlohmann::json::parse("[0,1]"));
    QCOMPARE(j["b"]["ranks"], nlohmann::json::parse("[0,2]"));
    QCOMPARE(j["ranks"]["only_a"], nlohmann::json::parse("[1]"));
    QCOMPARE(j["ranks"]["only_b"], nlohmann::json::parse("[2]"));
    QCOMPARE(j["anchor"]["spec"].get<std::string>(), std::string("start"));
    QVERIFY(j["anchor"]["name"].is_null());
    QCOMPARE(j["anchor"]["a_ns"].get<int64_t>(), int64_t(0));
    QCOMPARE(j["summary"]["step"].get<std::string>(), std::string("train_step"));
    QCOMPARE(j["summary"]["a_mean_ns"].get<int64_t>(), int64_t(1000000));
    QCOMPARE(j["summary"]["b_mean_ns"].get<int64_t>(), int64_t(1500000));
    QCOMPARE(j["summary"]["delta_mean_ns"].get<int64_t>(), int64_t(500000));
    QCOMPARE(j["summary"]["ratio_mean"].get<double>(), 1.5);
    // By impact: train_step (8 × 1 ms → 8 × 1.5 ms: +4 ms) before all_reduce (+3.2 ms).
    const auto &d = j["deltas"];
    QCOMPARE(d[0]["name"].get<std::string>(), std::string("train_step"));
    QVERIFY(d[0]["rank"].is_null());
    QCOMPARE(d[0]["delta"]["total_ns"].get<int64_t>(), int64_t(4000000));
    QCOMPARE(d[0]["ratio"]["p99"].get<double>(), 1.5);
    std::set<std::string> rowKeys, sideKeys;
    for (auto it = d[0].begin(); it != d[0].end(); ++it)
        rowKeys.insert(it.key());
    for (auto it = d[0]["a"].begin(); it != d[0]["a"].end(); ++it)
        sideKeys.insert(it.key());
    QCOMPARE(rowKeys, (std::set<std::string>{"name", "rank", "in", "a", "b", "delta", "ratio",
                                             "impact_ns"}));
    QCOMPARE(d[0]["impact_ns"].get<int64_t>(), int64_t(8 * 500000)); // Δ mean × 8 calls each
    QCOMPARE(sideKeys, (std::set<std::string>{"count", "total_ns", "mean_ns", "p50_ns", "p99_ns"}));
    // train_step per rank: rank 1 (A only, −4 ms) and rank 2 (B only, +6 ms) first, rank 0 +2 ms.
    QCOMPARE(d[1]["rank"].get<int>(), 2);
    QCOMPARE(d[1]["in"].get<std::string>(), std::string("b"));
    QVERIFY(d[1]["a"].is_null());
    QCOMPARE(d[2]["rank"].get<int>(), 1);
    QCOMPARE(d[2]["in"].get<std::string>(), std::string("a"));
    QVERIFY(d[2]["b"].is_null());
    QCOMPARE(d[3]["rank"].get<int>(), 0);
    QCOMPARE(d[3]["delta"]["mean_ns"].get<int64_t>(), int64_t(500000));
    QCOMPARE(d[4]["name"].get<std::string>(), std::string("all_reduce"));
    QCOMPARE(d[4]["delta"]["total_ns"].get<int64_t>(), int64_t(8 * 400000));
    QCOMPARE(d.size(), size_t(8));
}

void TstCompareCommand::csvFile()
{
    const QString csv = m_dir.filePath(QStringLiteral("cmp.csv"));
    const Run r = syncline({"compare", m_a, m_b, "--csv", csv, "--quiet"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.find("summary:") != std::string::npos); // the text still goes to stdout
    std::istringstream in(slurp(csv));
    std::string line;
    std::getline(in, line);
    QCOMPARE(line, std::string("name,rank,in,a_count,b_count,delta_count,ratio_count,a_total_ns,"
                               "b_total_ns,delta_total_ns,ratio_total,a_mean_ns,b_mean_ns,"
                               "delta_mean_ns,ratio_mean,a_p50_ns,b_p50_ns,delta_p50_ns,ratio_p50,"
                               "a_p99_ns,b_p99_ns,delta_p99_ns,ratio_p99"));
    std::getline(in, line);
    QCOMPARE(line, std::string("train_step,,both,8,8,0,1,8000000,12000000,4000000,1.5,1000000,"
                               "1500000,500000,1.5,1000000,1500000,500000,1.5,1000000,1500000,"
                               "500000,1.5"));
    int rows = 1;
    while (std::getline(in, line))
        ++rows;
    QCOMPARE(rows, 8);
}

void TstCompareCommand::textSummary()
{
    const Run r = syncline({"compare", m_a, m_b});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.find("summary: step 'train_step': mean 1.000 ms (A) vs 1.500 ms (B), +0.500 ms "
                        "(x1.500)") != std::string::npos,
             r.out.c_str());
    QVERIFY(r.out.find("ranks only in A: 1; only in B: 2") != std::string::npos);
    QVERIFY(r.out.find("(B only)") != std::string::npos);
    QVERIFY(r.out.find("A: " + m_a.toStdString()) != std::string::npos);
}

void TstCompareCommand::anchors()
{
    // The 2nd train_step: A's at 3 ms (origin 1 ms) → 2 ms from A's origin; B's at 8 ms from its
    // log's start, 2 ms from its origin.
    Run r = syncline({"compare", m_a, m_b, "--json", "--anchor", "train_step:2"});
    QCOMPARE(r.exitCode, 0);
    auto j = nlohmann::json::parse(r.out);
    QCOMPARE(j["anchor"]["spec"].get<std::string>(), std::string("train_step:2"));
    QCOMPARE(j["anchor"]["name"].get<std::string>(), std::string("train_step"));
    QCOMPARE(j["anchor"]["k"].get<int>(), 2);
    QCOMPARE(j["anchor"]["a_ns"].get<int64_t>(), int64_t(2000000));
    QCOMPARE(j["anchor"]["b_ns"].get<int64_t>(), int64_t(2000000));
    // B's wall anchor is 500 s later and its steps start 5 ms later: shift −500.005 s.
    QCOMPARE(j["anchor"]["shift_ns"].get<int64_t>(), int64_t(-500005000000));
    r = syncline({"compare", m_a, m_b, "--anchor", "train_step:9"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.find("syncline compare: --anchor train_step:9: run A (" + m_a.toStdString() +
                        "): no rank has a 9th 'train_step' (at most 4 per rank)") !=
                 std::string::npos,
             r.err.c_str());
    r = syncline({"compare", m_a, m_b, "--anchor", "nothing"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.find("no event named 'nothing'") != std::string::npos);
}

void TstCompareCommand::sameTraceNoDeltas()
{
    const QString kineto = QString::fromStdString(testdata::dir() + "/hta_sampled_kineto_2rank");
    const Run r = syncline({"compare", kineto, kineto, "--json"});
    QCOMPARE(r.exitCode, 0);
    const auto j = nlohmann::json::parse(r.out);
    QVERIFY(j["deltas"].size() > 10);
    for (const auto &row : j["deltas"]) {
        QCOMPARE(row["in"].get<std::string>(), std::string("both"));
        QCOMPARE(row["delta"]["total_ns"].get<int64_t>(), int64_t(0));
        QCOMPARE(row["delta"]["p99_ns"].get<int64_t>(), int64_t(0));
    }
    QCOMPARE(j["anchor"]["shift_ns"].get<int64_t>(), int64_t(0));
}

void TstCompareCommand::errors()
{
    Run r = syncline({"compare", m_a});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.find("syncline compare: expected two runs, A and B") != std::string::npos,
             r.err.c_str());
    QVERIFY(r.err.find("got 1") != std::string::npos);
    r = syncline({"compare", m_a, m_b, m_a});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("got 3") != std::string::npos);
    r = syncline({"compare", m_a, m_b, "--anchor", "train_step:0"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.find("syncline compare: --anchor: expected start, NAME or NAME:K with K >= 1, "
                        "got 'train_step:0'") != std::string::npos,
             r.err.c_str());
    r = syncline({"compare", m_a, m_b, "--anchor"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("--anchor needs start, NAME or NAME:K") != std::string::npos);
    r = syncline({"compare", m_a, m_b, "--csv"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("--csv needs a FILE") != std::string::npos);
    r = syncline({"compare", m_a, m_b, "--bogus"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("unknown option '--bogus'") != std::string::npos);
    r = syncline({"compare", m_a, m_dir.filePath(QStringLiteral("missing"))});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.find("syncline compare: ") != std::string::npos &&
                 r.err.find("missing") != std::string::npos,
             r.err.c_str());
    r = syncline(
        {"compare", m_a, m_b, "--csv", m_dir.filePath(QStringLiteral("no/such/dir/x.csv"))});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.find("x.csv: cannot write") != std::string::npos, r.err.c_str());
    r = syncline({"compare", "--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.find("usage: syncline compare A B") != std::string::npos);
    r = syncline({"help", "compare"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.find("syncline-compare/1") != std::string::npos);
}

// `syncline open A --compare B`: its argument errors are found before any window (no display
// needed), with status 2.
void TstCompareCommand::openCompareArgumentErrors()
{
    Run r = syncline({"open", m_a, "--compare", m_b, "--anchor", "step:0"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.find("syncline open: --anchor: expected start, NAME or NAME:K") !=
                 std::string::npos,
             r.err.c_str());
    r = syncline({"open", m_a, "--anchor", "train_step:2"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("--anchor and --interleave need --compare B") != std::string::npos);
    r = syncline({"open", m_a, m_b, "--compare", m_b});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("--compare: expected one run A (PATH) to compare with B, got 2") !=
            std::string::npos);
    r = syncline({"open", m_a, "--compare", m_dir.filePath(QStringLiteral("nope"))});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("nope: no such file or directory") != std::string::npos);
    r = syncline({"open", m_a, "--compare"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("--compare needs a PATH (run B)") != std::string::npos);
    r = syncline({"--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.find("compare A B") != std::string::npos);
}

QTEST_GUILESS_MAIN(TstCompareCommand)
// The CI gate on two simulated 8-worker runs (syncline-sim, real processes): B iterates every
// 12 ms, A every 10 ms, so B's "step" is 20 % slower. +5 % fails (exit 3, the condition named
// on stdout, the JSON "gate" key saying so), +50 % passes (exit 0); an absolute threshold
// between the two step means fails, one above passes; with several conditions one that holds is
// enough; a glob condition reports each name it matched.
void TstCompareCommand::failIfGate()
{
    const QString a = m_dir.filePath(QStringLiteral("simA")), b = m_dir.filePath(QStringLiteral("simB"));
    for (const auto &[out, period] : {std::pair{a, "10"}, std::pair{b, "12"}}) {
        QProcess sim;
        sim.start(QStringLiteral(SYNCLINE_BINARY_DIR "/bin/syncline-sim"),
                  {"--seed", "5", "--workers", "8", "--duration-s", "3", "--iteration-ms", period,
                   "--per-host", "4", "--regime", "datacenter", "--out", out});
        QVERIFY(sim.waitForFinished(100000));
        QCOMPARE(sim.exitCode(), 0);
    }
    // The step means the gate compares, from the plain JSON.
    Run r = syncline({"compare", a, b, "--json"});
    QCOMPARE(r.exitCode, 0);
    auto j = nlohmann::json::parse(r.out);
    QVERIFY(!j.contains("gate")); // only with --fail-if
    int64_t meanA = 0, meanB = 0;
    for (const auto &row : j["deltas"])
        if (row["name"] == "step" && row["rank"].is_null()) {
            meanA = row["a"]["mean_ns"].get<int64_t>();
            meanB = row["b"]["mean_ns"].get<int64_t>();
        }
    QVERIFY(meanA > 0);
    const double slower = double(meanB - meanA) / double(meanA);
    QVERIFY2(slower > 0.15 && slower < 0.25, std::to_string(slower).c_str());

    r = syncline({"compare", a, b, "--fail-if", "step:mean>+5%"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY(r.out.find("gate: FAILED") != std::string::npos);
    QVERIFY(r.out.find("FAIL step:mean>+5%") != std::string::npos);

    r = syncline({"compare", a, b, "--fail-if", "step:mean>+50%"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.find("gate: passed") != std::string::npos);
    QVERIFY(r.out.find("ok   step:mean>+50%") != std::string::npos);

    // The same through --json: the "gate" key, the holding condition also on stderr.
    r = syncline({"compare", a, b, "--json", "--fail-if", "step:mean>+50%", "--fail-if",
                  "step:p50>+5%"});
    QCOMPARE(r.exitCode, 3);
    j = nlohmann::json::parse(r.out);
    QCOMPARE(j["gate"]["failed"].get<bool>(), true);
    const auto &conds = j["gate"]["conditions"];
    QCOMPARE(conds.size(), size_t(2));
    QCOMPARE(conds[0]["spec"].get<std::string>(), std::string("step:mean>+50%"));
    QCOMPARE(conds[0]["holds"].get<bool>(), false);
    QCOMPARE(conds[0]["stat"].get<std::string>(), std::string("mean"));
    QCOMPARE(conds[0]["threshold"]["percent"].get<double>(), 50.0);
    QCOMPARE(conds[0]["matched"][0]["a_ns"].get<int64_t>(), meanA);
    QCOMPARE(conds[0]["matched"][0]["b_ns"].get<int64_t>(), meanB);
    QCOMPARE(conds[0]["matched"][0]["delta_ns"].get<int64_t>(), meanB - meanA);
    QCOMPARE(conds[1]["holds"].get<bool>(), true);
    QVERIFY(r.err.find("FAIL step:p50>+5%") != std::string::npos);
    QVERIFY(r.err.find("step:mean>+50%") == std::string::npos); // only what holds

    // Absolute thresholds: just under the mean's change fails, just over passes.
    const int64_t deltaUs = (meanB - meanA) / 1000;
    r = syncline({"compare", a, b, "--fail-if",
                  QString::fromStdString("step:mean>+" + std::to_string(deltaUs - 1) + "us")});
    QCOMPARE(r.exitCode, 3);
    r = syncline({"compare", a, b, "--fail-if",
                  QString::fromStdString("step:mean>" + std::to_string(deltaUs + 1) + "us")});
    QCOMPARE(r.exitCode, 0);
    // p95, p99, total, each over the 20 %; a glob over every name.
    for (const char *stat : {"p95", "p99", "total"}) {
        r = syncline({"compare", a, b, "--fail-if", QStringLiteral("step:%1>+5%").arg(stat)});
        QCOMPARE(r.exitCode, stat == std::string("total") ? 0 : 3); // same span: fewer steps in B
    }
    r = syncline({"compare", a, b, "--json", "--fail-if", "*:mean>+1000%"});
    QCOMPARE(r.exitCode, 0);
    j = nlohmann::json::parse(r.out);
    QCOMPARE(j["gate"]["conditions"][0]["matched"].size(), size_t(5)); // the sim's five names
    // A run compared with itself passes any non-negative threshold.
    r = syncline({"compare", a, a, "--fail-if", "step:p99>+0%", "--fail-if", "*:total>0ns"});
    QCOMPARE(r.exitCode, 0);
}

void TstCompareCommand::failIfErrors()
{
    for (const char *bad : {"step", "step:mean", "step:median>+5%", ":mean>+5%", "step:mean>5",
                            "step:mean>+5parsecs", "step:mean>%", "[a:mean>+5%"}) {
        const Run r = syncline({"compare", m_a, m_b, "--fail-if", bad});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("--fail-if") != std::string::npos, r.err.c_str());
        QVERIFY(r.out.empty());
    }
    Run r = syncline({"compare", m_a, m_b, "--fail-if"});
    QCOMPARE(r.exitCode, 2);
    // A name neither run has is an error, not a pass.
    r = syncline({"compare", m_a, m_b, "--fail-if", "trian_step:mean>+5%"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("no complete event named 'trian_step'") != std::string::npos);
    // The fixture's train_step is 50 % slower in B: +49 % fails, +50 % (not strictly more) passes.
    QCOMPARE(syncline({"compare", m_a, m_b, "--fail-if", "train_step:mean>+49%"}).exitCode, 3);
    QCOMPARE(syncline({"compare", m_a, m_b, "--fail-if", "train_step:mean>+50%"}).exitCode, 0);
    QCOMPARE(syncline({"compare", m_a, m_b, "--fail-if", "train_step:total>+3.9ms"}).exitCode, 3);
    QCOMPARE(syncline({"compare", m_a, m_b, "--fail-if", "train_step:total>+4ms"}).exitCode, 0);
}

#include "tst_comparecommand.moc"
