// The wall-clock check and `--clock wall` through the loader (WallClocks in ClockCorrector), on
// hand-written jobs whose truth is exact (testlogs::writeHostsJob): hosts with exact wall clocks
// and one asymmetric sync path (the corrected clock is off by half the asymmetry, the wall clock
// is not), a host whose wall clock is 3 ms off, a host without sync samples, two hosts that
// disagree, the correction turned off, and the correction cache kept apart per clock.
#include "../testlogs.h"
#include "timeline/load/jobloader.h"

#include <QDir>

#include <fstream>
#include <QTemporaryDir>
#include <QtTest>

using namespace syncline;

namespace {

std::shared_ptr<Timeline> load(const QString &dir, std::optional<ClockChoice> clock,
                               bool correct = true, bool window = false)
{
    LoadOptions o;
    o.paths = {dir.toStdString()};
    o.clock = clock;
    o.correctClocks = correct;
    if (window) {
        o.window.use = true;
        o.window.endNs = 3'600'000'000'000;
    }
    LoadResult r = JobLoader::load(o);
    if (!r.timeline)
        qWarning("%s", r.fatalError.c_str());
    return r.timeline;
}

// Global start of worker w's "mark" minus worker 0's: 0 when both are placed exactly.
int64_t markError(const Timeline &t, size_t w)
{
    return t.startNs(w, 0, 0, ClockMode::Corrected) - t.startNs(0, 0, 0, ClockMode::Corrected);
}

bool hasNote(const Timeline &t, const std::string &text)
{
    for (const std::string &n : t.clockNotes)
        if (n.find(text) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TstWallClockLoad : public QObject
{
    Q_OBJECT
private slots:
    void exactWallClocksBeatAnAsymmetricPath();
    void hostOffByThreeMillisecondsIsRefused();
    void hostWithoutSamplesHasNoBand();
    void twoHostsDisagree();
    void correctionOff();
    void cacheKeyedOnTheClock();
    void wallPairsFollowTheWallClock();
    void wallClockSteppedDuringTheJob();
};

void TstWallClockLoad::exactWallClocksBeatAnAsymmetricPath()
{
    QTemporaryDir dir;
    // Host 1's path back is 30 µs longer: its corrected clock is 15 µs off, its wall clock exact.
    testlogs::writeHostsJob(dir.path().toStdString(), {0, 0, 0}, {0, 30'000, 0});
    const auto c = load(dir.path(), std::nullopt);
    QVERIFY(c);
    for (const Worker &w : c->workers) {
        QCOMPARE(w.clock.method, sync::ClockMethod::SyncSamples);
        QVERIFY2(w.wall.verdict == sync::WallVerdict::Consistent, w.wall.reason.c_str());
        QVERIFY(!w.wall.used);
    }
    QVERIFY(c->wallClocksAgree);
    QCOMPARE(c->clockChoice, ClockChoice::Corrected);
    const int64_t corrected = markError(*c, 1);
    QVERIFY2(std::llabs(std::llabs(corrected) - 15'000) <= 1'000, std::to_string(corrected).c_str());
    // Host 1's wall offset against the consensus shows the path's half asymmetry.
    QVERIFY2(std::llabs(std::llabs(c->workers[1].wall.offsetNs) - 15'000) <= 1'000,
             c->workers[1].wall.reason.c_str());

    const auto w = load(dir.path(), ClockChoice::Wall);
    QVERIFY(w);
    QCOMPARE(w->clockChoice, ClockChoice::Wall);
    for (const Worker &wk : w->workers)
        QVERIFY(wk.wall.used);
    for (size_t i = 1; i < 3; ++i)
        QVERIFY2(std::llabs(markError(*w, i)) <= 100, std::to_string(markError(*w, i)).c_str());
    QVERIFY(hasNote(*w, "--clock wall: 3 of 3 host(s) with a sync band placed by their wall "
                        "clocks"));
    qInfo("host 1 (path back 30 us longer): mark off by %lld ns corrected, %lld ns with --clock "
          "wall; wall offsets %lld / %lld / %lld ns in bands %lld / %lld / %lld ns",
          (long long)corrected, (long long)markError(*w, 1), (long long)c->workers[0].wall.offsetNs,
          (long long)c->workers[1].wall.offsetNs, (long long)c->workers[2].wall.offsetNs,
          (long long)c->workers[0].wall.bandNs, (long long)c->workers[1].wall.bandNs,
          (long long)c->workers[2].wall.bandNs);
    // The raw mode is untouched by the choice.
    QCOMPARE(w->startNs(1, 0, 0, ClockMode::Raw), c->startNs(1, 0, 0, ClockMode::Raw));
}

void TstWallClockLoad::hostOffByThreeMillisecondsIsRefused()
{
    QTemporaryDir dir;
    testlogs::writeHostsJob(dir.path().toStdString(), {0, 0, 3'000'000}, {0, 30'000, 0});
    const auto c = load(dir.path(), ClockChoice::Corrected);
    QVERIFY(c);
    QCOMPARE(c->workers[0].wall.verdict, sync::WallVerdict::Consistent);
    QCOMPARE(c->workers[1].wall.verdict, sync::WallVerdict::Consistent);
    const WallClockStatus &off = c->workers[2].wall;
    QCOMPARE(off.verdict, sync::WallVerdict::Outside);
    QVERIFY2(std::llabs(off.offsetNs - 3'000'000) <= 20'000, off.reason.c_str());
    QVERIFY(off.bandNs > 0 && off.bandNs < 1'000'000);
    QVERIFY(!c->wallClocksAgree);

    const auto w = load(dir.path(), ClockChoice::Wall);
    QVERIFY(w);
    QVERIFY(w->workers[0].wall.used && w->workers[1].wall.used);
    QVERIFY(!w->workers[2].wall.used);
    QVERIFY(hasNote(*w, "--clock wall refused for host host-2 (rank 2): wall clock +3.0"));
    QVERIFY(hasNote(*w, "outside its sync band"));
    QVERIFY(hasNote(*w, "--clock wall: 2 of 3 host(s)"));
    // Host 1 on its exact wall clock; host 2 on its corrected clock (its path is symmetric,
    // so that is exact too, up to where the consensus sits within host 0's band).
    QVERIFY(std::llabs(markError(*w, 1)) <= 100);
    const int64_t e2 = markError(*w, 2);
    QVERIFY2(std::llabs(e2) <= w->workers[0].wall.bandNs + w->workers[2].clock.boundNs,
             std::to_string(e2).c_str());
    QVERIFY(std::llabs(e2) < 1'000'000);
    qInfo("host 2 (wall clock +3 ms): %s; with --clock wall its mark is %lld ns from the truth",
          off.reason.c_str(), (long long)e2);
}

void TstWallClockLoad::hostWithoutSamplesHasNoBand()
{
    QTemporaryDir dir;
    testlogs::writeHostsJob(dir.path().toStdString(), {0, 0});
    // A third host whose log has an anchor and an event, but no sync records.
    testlogs::write(dir.filePath("w.2.log").toStdString(),
                    testlogs::header(2, 0, "host-2", 1000, testlogs::kWallEpochNs + 5'000'000,
                                     "boot-2") +
                        testlogs::begin(2'000'000, 1, "mark") +
                        testlogs::end(2'001'000, 1, "mark"));
    const auto c = load(dir.path(), std::nullopt);
    QVERIFY(c);
    QCOMPARE(c->workers[2].clock.method, sync::ClockMethod::None);
    const WallClockStatus &s = c->workers[2].wall;
    QCOMPARE(s.verdict, sync::WallVerdict::NoBand);
    QCOMPARE(s.bandNs, int64_t(0));
    QVERIFY2(s.reason.find("no sync band") != std::string::npos &&
                 s.reason.find("no sync samples") != std::string::npos,
             s.reason.c_str());
    QCOMPARE(c->workers[0].wall.verdict, sync::WallVerdict::Consistent);
    QVERIFY(!c->wallClocksAgree);
    // --clock wall: the two hosts with a band placed by their wall clocks; the third keeps its
    // raw wall-clock map, as in the corrected view.
    const auto w = load(dir.path(), ClockChoice::Wall);
    QVERIFY(w->workers[0].wall.used && w->workers[1].wall.used && !w->workers[2].wall.used);
    QCOMPARE(w->startNs(2, 0, 0, ClockMode::Corrected), c->startNs(2, 0, 0, ClockMode::Corrected));
}

void TstWallClockLoad::twoHostsDisagree()
{
    QTemporaryDir dir;
    testlogs::writeHostsJob(dir.path().toStdString(), {0, 3'000'000});
    const auto c = load(dir.path(), std::nullopt);
    QVERIFY(c);
    for (const Worker &w : c->workers)
        QCOMPARE(w.wall.verdict, sync::WallVerdict::NoConsensus);
    const auto w = load(dir.path(), ClockChoice::Wall);
    QVERIFY(!w->workers[0].wall.used && !w->workers[1].wall.used);
    QVERIFY(hasNote(*w, "--clock wall refused for every host"));
    for (size_t i = 0; i < 2; ++i)
        QCOMPARE(w->startNs(i, 0, 0, ClockMode::Corrected),
                 c->startNs(i, 0, 0, ClockMode::Corrected));
}

void TstWallClockLoad::correctionOff()
{
    QTemporaryDir dir;
    testlogs::writeHostsJob(dir.path().toStdString(), {0, 0});
    const auto c = load(dir.path(), ClockChoice::Wall, false);
    QVERIFY(c);
    for (const Worker &w : c->workers) {
        QCOMPARE(w.wall.verdict, sync::WallVerdict::NoBand);
        QVERIFY(w.wall.reason.find("clock correction disabled") != std::string::npos);
        QVERIFY(!w.wall.used);
    }
    QVERIFY(hasNote(*c, "--clock wall: nothing to check the wall clocks against"));
}

void TstWallClockLoad::cacheKeyedOnTheClock()
{
    // One correction cache per job directory (a store removes the others): the clock is part of
    // its key, so a windowed load is served only a cache of its own clock.
    QTemporaryDir dir;
    testlogs::writeHostsJob(dir.path().toStdString(), {0, 0, 3'000'000}, {0, 30'000, 0});
    const auto fullWall = load(dir.path(), ClockChoice::Wall);
    const auto fullCorrected = load(dir.path(), ClockChoice::Corrected);
    QVERIFY(fullWall && fullCorrected);
    QVERIFY(fullWall->startNs(1, 0, 0, ClockMode::Corrected) !=
            fullCorrected->startNs(1, 0, 0, ClockMode::Corrected));
    auto same = [](const Timeline &a, const Timeline &b) {
        for (size_t i = 0; i < 3; ++i) {
            QCOMPARE(a.workers[i].wall.used, b.workers[i].wall.used);
            QCOMPARE(a.workers[i].wall.verdict, b.workers[i].wall.verdict);
            QCOMPARE(a.workers[i].wall.offsetNs, b.workers[i].wall.offsetNs);
            QCOMPARE(a.workers[i].wall.bandNs, b.workers[i].wall.bandNs);
            QCOMPARE(a.workers[i].wall.reason, b.workers[i].wall.reason);
            QCOMPARE(a.startNs(i, 0, 0, ClockMode::Corrected),
                     b.startNs(i, 0, 0, ClockMode::Corrected));
        }
        QCOMPARE(a.wallClocksAgree, b.wallClocksAgree);
    };
    // The corrected cache (the last full load's) serves a corrected window...
    auto win = load(dir.path(), ClockChoice::Corrected, true, true);
    QVERIFY(win && win->window.readOnlyWindow);
    same(*win, *fullCorrected);
    // ...but never a wall one: that loads whole (and writes the wall cache)...
    win = load(dir.path(), ClockChoice::Wall, true, true);
    QVERIFY(win && !win->window.readOnlyWindow);
    same(*win, *fullWall);
    // ...which then serves the next wall window, with the wall check as stored...
    win = load(dir.path(), ClockChoice::Wall, true, true);
    QVERIFY(win && win->window.readOnlyWindow);
    same(*win, *fullWall);
    // ...and is not served to a corrected one.
    win = load(dir.path(), ClockChoice::Corrected, true, true);
    QVERIFY(win && !win->window.readOnlyWindow);
    same(*win, *fullCorrected);
}

// A path that settles: host 1's first 10 bursts have 300 µs more asymmetry, so its corrected
// map is up to 150 µs off at the start and right later. With only the header's anchor (format
// 1.1) --clock wall shifts the whole map by what it reads at the anchor, and the mark lands µs
// off; with the heartbeats' wall-clock pairs (format 1.2) every host follows its exact wall
// clock, and the mark is exact — on a parsed load and on one from the index alike.
void TstWallClockLoad::wallPairsFollowTheWallClock()
{
    for (const bool pairs : {false, true}) {
        QTemporaryDir dir;
        testlogs::writeHostsJob(dir.path().toStdString(), {0, 0, 0}, {}, {0, 300'000, 0},
                                pairs ? 100'000'000 : 0);
        std::vector<int64_t> errors;
        for (int pass = 0; pass < 2; ++pass) { // parsed, then from the index and store
            const auto c = load(dir.path(), ClockChoice::Wall);
            QVERIFY(c);
            for (const Worker &w : c->workers)
                QVERIFY2(w.wall.used, w.wall.reason.c_str());
            QCOMPARE(c->workers[1].wallPairs.size(), size_t(pairs ? 29 : 0));
            errors.push_back(markError(*c, 1));
        }
        QCOMPARE(errors[0], errors[1]);
        const std::string e = std::to_string(errors[0]);
        if (pairs)
            QVERIFY2(std::llabs(errors[0]) <= 100, e.c_str());
        else // 3.7 µs measured: what the corrected map's error at the anchor leaves
            QVERIFY2(std::llabs(errors[0]) >= 1'000, e.c_str());
    }
}

// Host 2's wall clock steps 3 ms ahead at 1.5 s (its heartbeats say so, its anchor does not):
// its pairs disagree among themselves beyond its band, so it is `outside` and stays on its
// corrected clock under --clock wall; the other hosts follow their wall clocks.
void TstWallClockLoad::wallClockSteppedDuringTheJob()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    testlogs::writeHostsJob(d, {0, 0, 0}, {}, {}, 100'000'000);
    const std::string path = d + "/w.2.log";
    std::ifstream in(path);
    std::string text, line;
    const std::string hb = "\"t\":\"hb\",\"ts\":", wallKey = "\"wall_ns\":";
    while (std::getline(in, line)) {
        const size_t ts = line.find(hb);
        const size_t w = line.find(wallKey);
        if (ts != std::string::npos && w != std::string::npos &&
            std::stoll(line.substr(ts + hb.size())) >= 1'500'000'000) {
            const size_t from = w + wallKey.size(), end = line.find(',', from);
            const int64_t wall = std::stoll(line.substr(from, end - from)) + 3'000'000;
            line = line.substr(0, from) + std::to_string(wall) + line.substr(end);
        }
        text += line + "\n";
    }
    in.close();
    testlogs::write(path, text);
    const auto c = load(dir.path(), ClockChoice::Wall);
    QVERIFY(c);
    QCOMPARE(c->workers[2].wall.verdict, sync::WallVerdict::Outside);
    QVERIFY(!c->workers[2].wall.used);
    QVERIFY(c->workers[0].wall.used && c->workers[1].wall.used);
    QVERIFY(hasNote(*c, "--clock wall refused for host host-2"));
}

QTEST_GUILESS_MAIN(TstWallClockLoad)
#include "tst_wallclockload.moc"
