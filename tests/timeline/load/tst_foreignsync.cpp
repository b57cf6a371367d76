// The clock correction on logs written by an independent writer (foreignwriter.h: only the
// documented format, no recorder, no simulator), through the real loader, against the writer's
// ground truth: bursts in flight at once with their sync records in any order, and short
// incarnations whose first and last records lie outside (or inside) their first and last bursts.
#include "foreignwriter.h"
#include "jobloadertest.h"
#include "timeline/model/collectiveinstances.h"

#include <QTemporaryDir>
#include <QtTest>

#include <array>
#include <cmath>
#include <map>

using namespace syncline;
using foreignwriter::Clock;
using foreignwriter::Log;
using foreignwriter::Path;

namespace {

// |corrected − true| of a local stamp of worker w, ns.
double errorAt(const Timeline &tl, size_t w, const Clock &clock, int64_t local)
{
    const int64_t global = tl.toGlobal(w, local, ClockMode::Corrected) - tl.referenceShiftNs;
    return double(global) - clock.reference(local);
}

// The practice baseline: per burst id the tightest interval (smallest t2 − t1, largest
// t3 − t4), a least-squares line through the intervals' midpoints; its worst error over the
// stamps.
double straightLineError(const Log &log)
{
    std::map<int, std::array<int64_t, 4>> bursts; // id -> (upper, tUpper, lower, tLower)
    for (const foreignwriter::Exchange &x : log.exchanges()) {
        auto [it, fresh] = bursts.try_emplace(x.burst, std::array<int64_t, 4>{
                                                            INT64_MAX, 0, INT64_MIN, 0});
        std::array<int64_t, 4> &b = it->second;
        if (x.t2 - x.t1 < b[0])
            b = {x.t2 - x.t1, x.t1, b[2], b[3]};
        if (x.t3 - x.t4 > b[2])
            b = {b[0], b[1], x.t3 - x.t4, x.t4};
    }
    const double t0 = double(log.stamps().front());
    double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto &[id, b] : bursts) {
        const double x = 0.5 * (double(b[1]) + double(b[3])) - t0;
        const double y = 0.5 * (double(b[0]) + double(b[2]));
        n += 1;
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    const double a = (n * sxy - sx * sy) / (n * sxx - sx * sx), c = (sy - a * sx) / n;
    double worst = 0;
    for (int64_t local : log.stamps()) {
        const double global = double(local) + c + a * (double(local) - t0);
        worst = std::max(worst, std::abs(global - log.clock().reference(local)));
    }
    return worst;
}

size_t workerOf(const Timeline &tl, int rank, int restart)
{
    for (size_t i = 0; i < tl.workers.size(); ++i)
        if (tl.workers[i].info.rank == rank && tl.workers[i].info.restart == restart)
            return i;
    return SIZE_MAX;
}

std::string problemText(const Timeline &tl)
{
    std::string s;
    for (const LoadProblem &p : tl.problems)
        s += p.message + "\n";
    for (const std::string &note : tl.clockNotes)
        s += "clock: " + note + "\n";
    return s;
}

} // namespace

class TestForeignSync : public QObject
{
    Q_OBJECT

private slots:
    void interleavedBursts_data();
    void interleavedBursts();
    void incarnationEdges_data();
    void incarnationEdges();
    void failedCollective_data();
    void failedCollective();
    void failedArgs();
};

void TestForeignSync::interleavedBursts_data()
{
    QTest::addColumn<uint64_t>("seed");
    QTest::addColumn<bool>("shuffle");
    for (uint64_t seed : {1, 2, 3, 4, 5, 6, 7, 8})
        QTest::newRow(("seed " + std::to_string(seed)).c_str()) << seed << (seed % 4 >= 2);
}

// An init burst and the first periodic burst in flight at once, later bursts overlapping their
// neighbour at random, sync records written in reply order or shuffled: every burst must stay
// one burst (grouped by its id), so the fit is as good as a straight line through the bursts.
void TestForeignSync::interleavedBursts()
{
    QFETCH(uint64_t, seed);
    QFETCH(bool, shuffle);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::mt19937_64 rng(seed);
    std::vector<Log> logs;
    const double seconds = 20.0;
    for (int rank = 0; rank < 4; ++rank) {
        Clock c;
        c.offsetNs = int64_t(std::uniform_real_distribution<double>(1e11, 9e11)(rng));
        c.driftPpm = std::uniform_real_distribution<double>(-50, 50)(rng);
        // Two processes per host: one clock domain (same host and boot id), one clock.
        if (rank % 2 == 1)
            c = logs.back().clock();
        // Odd seeds: a datacenter path (5 µs queueing); even: a loaded loopback (50 µs, 10 %
        // outliers).
        Path path;
        if (seed % 2 == 0) {
            path.queueMeanNs = 50'000;
            path.outlierP = 0.1;
        }
        Log log(c, path, seed * 100 + uint64_t(rank));
        std::bernoulli_distribution overlap(0.3);
        double tau = 0.03e9 + 1e6 * rank;
        log.interleaved(0, 1, tau);
        for (int k = 2; k < int(seconds);) {
            tau = (k - 1) * 1e9 + 1e6 * rank;
            if (overlap(rng) && k + 1 < int(seconds)) {
                log.interleaved(k, k + 1, tau);
                k += 2;
            } else {
                log.burst(k, tau);
                ++k;
            }
        }
        for (double t = 0.001e9; t + 0.09e9 < seconds * 1e9; t += 0.1e9)
            log.event("step", t, t + 0.08e9);
        log.write(dir.filePath("timer_events." + QString::number(rank) + ".log").toStdString(),
                  rank, 0, "host-" + std::to_string(rank / 2), "boot-" + std::to_string(rank / 2),
                  0.0, seconds * 1e9, shuffle);
        logs.push_back(std::move(log));
    }
    const LoadResult r = jobloadertest::loadPaths({dir.path().toStdString()});
    QVERIFY(r.timeline);
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), size_t(4));
    // No false clock steps (the engine's notes) and no other problem.
    QVERIFY2(tl.clockNotes.empty() && tl.problems.empty(), problemText(tl).c_str());
    for (int rank = 0; rank < 4; ++rank) {
        const size_t w = workerOf(tl, rank, 0);
        QVERIFY(w != SIZE_MAX);
        const Log &log = logs[size_t(rank)];
        double worst = 0;
        for (int64_t local : log.stamps()) {
            const double e = errorAt(tl, w, log.clock(), local);
            worst = std::max(worst, std::abs(e));
            const int64_t bound = tl.workers[w].corrected.segmentAt(local).boundNs;
            QVERIFY2(std::abs(e) <= double(bound) + 2,
                     qPrintable(QString("rank %1: error %2 ns beyond the bound %3 ns")
                                    .arg(rank).arg(e).arg(bound)));
        }
        const double line = straightLineError(log);
        qDebug("rank %d: worst error %.0f ns (a straight line: %.0f ns), drift %.3f ppm (truth "
               "%.3f)",
               rank, worst, line, tl.workers[w].clock.driftPpm, -log.clock().driftPpm);
        QVERIFY2(worst <= std::max(2 * line, 3'000.0),
                 qPrintable(QString("rank %1: worst error %2 ns, a straight line %3 ns")
                                .arg(rank)
                                .arg(worst)
                                .arg(line)));
        // The engine's drift: global runs 1/(1 + d) as fast as this clock.
        QVERIFY2(std::abs(tl.workers[w].clock.driftPpm + log.clock().driftPpm) < 0.5,
                 qPrintable(QString("rank %1: drift %2 ppm, truth %3")
                                .arg(rank)
                                .arg(tl.workers[w].clock.driftPpm)
                                .arg(-log.clock().driftPpm)));
    }
}

void TestForeignSync::incarnationEdges_data()
{
    QTest::addColumn<uint64_t>("seed");
    QTest::addColumn<double>("drift");
    QTest::addColumn<int>("perHost");
    for (uint64_t seed : {11, 12, 13, 14})
        for (int perHost : {1, 4})
            for (double drift : {0.0, -40.0})
                QTest::newRow(("seed " + std::to_string(seed) + ", " + std::to_string(perHost) +
                               "/host, " + std::to_string(int(drift)) + " ppm")
                                  .c_str())
                    << seed << drift << perHost;
}

// Restarted incarnations living 2.5 s on a loaded loopback (queueing 100 µs): a burst at start
// (after the first records), one a second, a final burst at close() and the close record right
// after it. The map at the first and last records must be as good as in the middle, and the
// reported drift must be the fit's (truth), not the slope between the edge values.
void TestForeignSync::incarnationEdges()
{
    QFETCH(uint64_t, seed);
    QFETCH(double, drift);
    QFETCH(int, perHost);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    Path loaded;
    loaded.minOutNs = loaded.minBackNs = 30'000;
    loaded.queueMeanNs = 100'000;
    loaded.processingNs = 10'000;
    Clock c;
    c.offsetNs = 4'000'000'000'000;
    c.driftPpm = drift;
    std::vector<Log> logs;
    std::vector<std::pair<int, int>> who; // (rank, restart)
    for (int restart = 0; restart < 2; ++restart) {
        for (int rank = 0; rank < perHost; ++rank) {
            Log log(c, loaded, seed * 1000 + uint64_t(restart * 100 + rank));
            // Restart 0 is killed after 1.5 s (no final burst, no close record); restart 1
            // starts 2.5 s later and lives 2.5 s.
            const double start = restart * 4e9 + rank * 3e6;
            const double life = restart ? 2.5e9 : 1.5e9;
            for (double t = start + 0.2e6; t + 40e6 < start + life; t += 50e6)
                log.event("step", t, t + 40e6);
            // A loaded machine: each burst's queueing 20 µs .. 1 ms; the final one 1 ms
            // (teardown).
            auto load = [&log] {
                return std::exp(std::uniform_real_distribution<double>(std::log(20e3),
                                                                       std::log(1e6))(log.rng()));
            };
            int k = 0;
            log.burst(k++, start + 1e6, 8, load());
            for (double t = start + 1e9; t < start + life - 0.3e9; t += 1e9)
                log.burst(k++, t, 8, load());
            double end = start + life;
            if (restart == 1)
                end = log.burst(k++, start + life, 8, 1e6) + 20e3; // close(): the final burst
            log.write(dir.filePath(QString("timer_events.%1%2.log")
                                       .arg(rank)
                                       .arg(restart ? ".r1" : ""))
                          .toStdString(),
                      rank, restart, "host-a", "boot-a", start, restart ? end : -1, false);
            logs.push_back(std::move(log));
            who.push_back({rank, restart});
        }
    }
    const LoadResult r = jobloadertest::loadPaths({dir.path().toStdString()});
    QVERIFY(r.timeline);
    const Timeline &tl = *r.timeline;
    QCOMPARE(tl.workers.size(), logs.size());
    for (size_t i = 0; i < logs.size(); ++i) {
        const size_t w = workerOf(tl, who[i].first, who[i].second);
        QVERIFY(w != SIZE_MAX);
        const Log &log = logs[i];
        const std::vector<int64_t> &stamps = log.stamps();
        const int64_t first = *std::min_element(stamps.begin(), stamps.end());
        const int64_t last = *std::max_element(stamps.begin(), stamps.end());
        // The middle: stamps 0.3 s and more from either edge.
        double middleError = 0;
        int64_t middleBound = 0;
        for (int64_t local : stamps) {
            if (local - first < 300'000'000 || last - local < 300'000'000)
                continue;
            middleError = std::max(middleError, std::abs(errorAt(tl, w, log.clock(), local)));
            middleBound = std::max(middleBound, tl.workers[w].corrected.segmentAt(local).boundNs);
        }
        QVERIFY(middleBound > 0);
        const double firstError = std::abs(errorAt(tl, w, log.clock(), first));
        const double lastError = std::abs(errorAt(tl, w, log.clock(), last));
        const QString where = QString("rank %1 restart %2: ").arg(who[i].first).arg(who[i].second);
        qDebug("%s first %.0f ns, last %.0f ns, middle %.0f ns (bound %lld), drift %.2f ppm",
               qPrintable(where), firstError, lastError, middleError, (long long)middleBound,
               tl.workers[w].clock.driftPpm);
        QVERIFY2(firstError <= double(middleBound),
                 qPrintable(where + QString("error at the first record %1 ns, middle's bound %2")
                                        .arg(firstError).arg(middleBound)));
        QVERIFY2(lastError <= double(middleBound),
                 qPrintable(where + QString("error at the last record %1 ns, middle's bound %2")
                                        .arg(lastError).arg(middleBound)));
        // As good as the middle (a line's end is noisier than its centre: 1.5×, + 2 µs).
        QVERIFY2(std::max(firstError, lastError) <= 1.5 * middleError + 2'000,
                 qPrintable(where + QString("edges %1 / %2 ns, middle %3 ns")
                                        .arg(firstError).arg(lastError).arg(middleError)));
        // The drift is the fit's: near the truth (engine's sign: global runs 1/(1 + d) as fast),
        // and the same for the processes of one incarnation (one clock, spans 3 ms apart).
        const double reported = tl.workers[w].clock.driftPpm;
        QVERIFY2(std::abs(reported + drift) < 8.0,
                 qPrintable(where + QString("drift %1 ppm, truth %2").arg(reported).arg(-drift)));
        const size_t w0 = workerOf(tl, 0, who[i].second);
        QVERIFY2(std::abs(reported - tl.workers[w0].clock.driftPpm) < 1.0,
                 qPrintable(where + QString("drift %1 ppm, rank 0 of the incarnation %2 ppm")
                                        .arg(reported)
                                        .arg(tl.workers[w0].clock.driftPpm)));
    }
}

void TestForeignSync::failedCollective_data()
{
    QTest::addColumn<bool>("failed");
    QTest::newRow("marked failed") << true;
    QTest::newRow("not marked (control)") << false;
}

// Two synced ranks, ten DDP all-reduces; during the tenth a third rank crashed: rank 0's
// all-reduce fails at 101 ms (its future raised), before rank 1 even began it (150 ms). Messages
// right after (0 → 1 at 102 ms, 1 → 0 at 152 ms) are real. A failed instance is no evidence that
// every rank had begun, so it must not constrain the maps: the job is clean. Unmarked (what the
// hook wrote before it knew), the constraints contradict each other and violations remain.
void TestForeignSync::failedCollective()
{
    QFETCH(bool, failed);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::vector<Log> logs;
    for (int rank = 0; rank < 2; ++rank) {
        Clock c;
        c.offsetNs = 1'000'000'000'000 + rank * 77'000'000'000;
        Log log(c, Path{}, 500 + uint64_t(rank));
        for (int k = 0; k < 12; ++k)
            log.burst(k, k * 0.1e9 + 1e6);
        auto x = [&](double a, double b, int k, bool fail) {
            const int64_t la = c.local(a), lb = c.local(b);
            log.record(la, "{\"t\":\"X\",\"ts\":" + std::to_string(la) +
                               ",\"dur\":" + std::to_string(lb - la) +
                               ",\"tid\":1,\"name\":\"ddp_allreduce\",\"args\":{\"seq\":" +
                               std::to_string(k) +
                               (fail ? ",\"failed\":true,\"error\":\"peer 2 closed\"" : "") +
                               "}}");
        };
        auto msg = [&](double at, const char *dir, int peer, const char *id) {
            const int64_t l = c.local(at);
            log.record(l, "{\"t\":\"msg\",\"ts\":" + std::to_string(l) +
                              ",\"tid\":1,\"dir\":\"" + dir + "\",\"peer\":" +
                              std::to_string(peer) + ",\"id\":\"" + id + "\"}");
        };
        for (int k = 0; k < 9; ++k)
            x(10e6 * k + 1e6 * rank, 10e6 * k + 9.5e6, k, false);
        if (rank == 0) {
            x(100e6, 101e6, 9, failed);
            msg(102e6, "send", 1, "a");
            msg(153e6, "recv", 1, "b");
        } else {
            msg(103e6, "recv", 0, "a");
            x(150e6, 151e6, 9, false);
            msg(152e6, "send", 0, "b");
        }
        log.write(dir.filePath(QString("timer_events.%1.log").arg(rank)).toStdString(), rank, 0,
                  "host-" + std::to_string(rank), "boot-" + std::to_string(rank), 0.0, 1.2e9,
                  false);
        logs.push_back(std::move(log));
    }
    const LoadResult r = jobloadertest::loadPaths({dir.path().toStdString()}, "ddp_allreduce");
    QVERIFY(r.timeline);
    const Timeline &tl = *r.timeline;
    const sync::CausalityReport &c = tl.causality;
    qDebug("constraints %lld, violations before %lld, after %lld", (long long)c.constraints,
           (long long)c.violationsBefore, (long long)c.violationsAfter);
    if (!failed) {
        // The control: the rule applied to a completed instance; `check` would exit 1.
        QVERIFY(c.violationsBefore > 0);
        QVERIFY(c.violationsAfter > 0);
        return;
    }
    QCOMPARE(c.violationsBefore, int64_t(0));
    QCOMPARE(c.violationsAfter, int64_t(0));
    QVERIFY(c.constraints > 0); // the other nine instances and the two messages
    // Nothing was moved: the maps are the sync fit, within its bound of the truth.
    for (int rank = 0; rank < 2; ++rank) {
        const size_t w = workerOf(tl, rank, 0);
        for (int64_t local : logs[size_t(rank)].stamps())
            QVERIFY(std::abs(errorAt(tl, w, logs[size_t(rank)].clock(), local)) <
                    double(tl.workers[w].corrected.segmentAt(local).boundNs) + 2);
    }
}

// Only a top-level "failed": true marks an event failed (any spacing, any key order).
void TestForeignSync::failedArgs()
{
    QVERIFY(argsSayFailed("{\"failed\":true}"));
    QVERIFY(argsSayFailed("{\"seq\":9, \"failed\" :  true,\"error\":\"x\"}"));
    QVERIFY(argsSayFailed("{\"x\":\"a\\\"b\",\"failed\":true}"));
    QVERIFY(!argsSayFailed("{\"failed\":false}"));
    QVERIFY(!argsSayFailed("{\"failed\":\"yes\"}"));
    QVERIFY(!argsSayFailed("{\"x\":{\"failed\":true}}"));
    QVERIFY(!argsSayFailed("{\"a\":[1,{\"failed\":true}]}"));
    QVERIFY(!argsSayFailed("{\"note\":\"\\\"failed\\\":true\"}"));
    QVERIFY(!argsSayFailed("{\"seq\":1}"));
    QVERIFY(!argsSayFailed(""));
    QVERIFY(!argsSayFailed("{\"failed\""));
}

QTEST_GUILESS_MAIN(TestForeignSync)
#include "tst_foreignsync.moc"
