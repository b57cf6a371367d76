// LoadOptions::alignCollectives (--no-align): the clocks are corrected from sync samples and
// messages only. A job of three workers — ranks 0 and 1 synced to one time server, rank 2 with
// no sync samples, all three running the same all_reduce — aligns rank 2 on the all_reduce by
// default and leaves it on its raw clock with --no-align, while ranks 0 and 1 keep their
// sync-sample correction either way. The correction cache is keyed by the option: a windowed
// --no-align load after a default full load is never served the aligned clocks (it loads whole
// and writes its own cache, which the next windowed --no-align load then reads). A worker left
// uncorrected says why in its note.
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"

#include <QtTest>

#include <algorithm>

using namespace syncline;

namespace {

constexpr int64_t kMs = 1000000;

// Worker w's local clock = true time − offset[w]; ranks 0 and 1 carry sync exchanges with the
// time server (true time), rank 2 none. Rank 2 runs `rank2Collective` where the others run
// all_reduce ("" for none).
void writeJob(const std::string &d, const std::string &rank2Collective = "all_reduce")
{
    const int64_t offset[3] = {1000 * kMs, -3 * kMs, 5 * kMs};
    for (int rank = 0; rank < 3; ++rank) {
        const int64_t off = offset[rank];
        const std::string host(1, char('a' + rank));
        std::string text =
            testlogs::header(rank, 0, host, 1000, 1700000000000000000LL + rank * 777, "boot-" + host);
        if (rank < 2)
            for (int burst = 0; burst < 30; ++burst)
                for (int seq = 0; seq < 4; ++seq) {
                    const int64_t t1 = 10 * kMs + burst * 100 * kMs + seq * 100000;
                    const int64_t t2 = t1 + off + 20000, t3 = t2 + 1000, t4 = t3 - off + 20000;
                    text += "{\"t\":\"sync\",\"burst\":" + std::to_string(burst) +
                            ",\"seq\":" + std::to_string(seq) + ",\"ref\":\"srv\",\"t1\":" +
                            std::to_string(t1) + ",\"t2\":" + std::to_string(t2) +
                            ",\"t3\":" + std::to_string(t3) + ",\"t4\":" + std::to_string(t4) +
                            "}\n";
                }
        // 20 all_reduces ending at the same true instant on every rank (begins spread).
        const std::string name = rank == 2 ? rank2Collective : "all_reduce";
        for (int k = 0; k < 20 && !name.empty(); ++k) {
            const int64_t end = 100 * kMs + k * 100 * kMs;
            const int64_t begin = end - (1 + rank) * kMs;
            text += testlogs::begin(begin - off, 1, name) + testlogs::end(end - off, 1, name);
        }
        testlogs::write(d + "/w." + std::to_string(rank) + ".log", text);
    }
}

LoadResult loadJob(const std::string &d, bool align, bool window)
{
    LoadOptions o;
    o.paths = {d};
    o.alignCollectives = align;
    if (window) {
        o.window.use = true;
        o.window.beginNs = 0;
        o.window.endNs = 10'000 * kMs;
    }
    return JobLoader::load(o);
}

// The largest |corrected end of rank 2's all_reduce − rank 0's|, over the instances.
int64_t rank2Miss(const Timeline &tl)
{
    auto ends = [&](size_t w) {
        std::vector<int64_t> out;
        const EventTrack &t = tl.workers[w].tracks[0];
        for (size_t i = 0; i < t.count(); ++i)
            out.push_back(tl.toGlobal(w, t.localEnd[i], ClockMode::Corrected));
        return out;
    };
    const std::vector<int64_t> e0 = ends(0), e2 = ends(2);
    int64_t worst = 0;
    for (size_t i = 0; i < std::min(e0.size(), e2.size()); ++i)
        worst = std::max(worst, std::abs(e2[i] - e0[i]));
    return worst;
}

bool noted(const Timeline &tl)
{
    return std::any_of(tl.clockNotes.begin(), tl.clockNotes.end(), [](const std::string &n) {
        return n.find("collective alignment off (--no-align)") != std::string::npos;
    });
}

} // namespace

class TstNoAlign : public QObject
{
    Q_OBJECT

private slots:
    // A worker left uncorrected says why in its note: no sync samples, and then why the
    // collectives did not align it — alignment off, none of its own, or its own not shared.
    void uncorrectedWorkerSaysWhy_data()
    {
        QTest::addColumn<QString>("collective");
        QTest::addColumn<bool>("align");
        QTest::addColumn<QString>("why");
        QTest::newRow("--no-align") << "all_reduce" << false
                                    << "collective alignment is off (--no-align)";
        QTest::newRow("no collectives") << "" << true << "no collectives to align on";
        QTest::newRow("not shared")
            << "broadcast" << true
            << "its 20 collective instance(s) could not be aligned: the \"collective alignment\" "
               "note of rank 2 says why";
    }
    void uncorrectedWorkerSaysWhy()
    {
        QFETCH(QString, collective);
        QFETCH(bool, align);
        QFETCH(QString, why);
        QTemporaryDir dir;
        writeJob(dir.path().toStdString(), collective.toStdString());
        const LoadResult r = loadJob(dir.path().toStdString(), align, false);
        QVERIFY2(r.timeline, r.fatalError.c_str());
        const Timeline &tl = *r.timeline;
        QCOMPARE(tl.workers[2].clock.method, sync::ClockMethod::None);
        const std::string want = "rank 2: not corrected (no sync samples, and " +
                                 why.toStdString() +
                                 "); corrected view uses the raw wall-clock mapping";
        std::string notes;
        for (const std::string &n : tl.clockNotes)
            notes += n + "\n";
        QVERIFY2(notes.find(want) != std::string::npos, notes.c_str());
        if (collective == "broadcast")
            QVERIFY2(notes.find("rank 2: collective alignment: ") != std::string::npos,
                     notes.c_str());
    }

    void syncSamplesKeptCollectivesOff()
    {
        QTemporaryDir dir;
        writeJob(dir.path().toStdString());
        for (const bool align : {true, false}) {
            const LoadResult r = loadJob(dir.path().toStdString(), align, false);
            QVERIFY2(r.timeline, r.fatalError.c_str());
            const Timeline &tl = *r.timeline;
            QCOMPARE(tl.workers.size(), size_t(3));
            QCOMPARE(tl.workers[0].clock.method, sync::ClockMethod::SyncSamples);
            QCOMPARE(tl.workers[1].clock.method, sync::ClockMethod::SyncSamples);
            const int64_t miss = rank2Miss(tl);
            qInfo("align=%d: rank 2 all_reduce ends %lld ns from rank 0's", int(align),
                  (long long)miss);
            if (align) {
                QCOMPARE(tl.workers[2].clock.method, sync::ClockMethod::Collectives);
                QVERIFY2(miss <= 10'000, std::to_string(miss).c_str());
                QVERIFY(!noted(tl));
            } else {
                QCOMPARE(tl.workers[2].clock.method, sync::ClockMethod::None);
                QVERIFY2(miss > kMs, std::to_string(miss).c_str());
                QVERIFY(noted(tl));
            }
            // The collectives are still marked for the viewer and the diagnosis.
            const NameKind *k = tl.kindOf(tl.names.find("all_reduce"));
            QVERIFY(k && k->collective);
        }
    }

    void correctionCacheKeyedByTheOption()
    {
        QTemporaryDir dir;
        const std::string d = dir.path().toStdString();
        writeJob(d);
        QVERIFY(loadJob(d, true, false).timeline); // writes the aligned correction cache
        const LoadResult aligned = loadJob(d, true, true);
        QVERIFY(aligned.timeline);
        QVERIFY(aligned.timeline->window.readOnlyWindow); // served by that cache
        QCOMPARE(aligned.timeline->workers[2].clock.method, sync::ClockMethod::Collectives);
        // --no-align: not that cache — a whole load, cut; then its own cache.
        for (const bool again : {false, true}) {
            const LoadResult r = loadJob(d, false, true);
            QVERIFY2(r.timeline, r.fatalError.c_str());
            const Timeline &tl = *r.timeline;
            QCOMPARE(tl.window.readOnlyWindow, again);
            QCOMPARE(tl.workers[2].clock.method, sync::ClockMethod::None);
            QCOMPARE(tl.workers[0].clock.method, sync::ClockMethod::SyncSamples);
            QVERIFY2(rank2Miss(tl) > kMs, std::to_string(rank2Miss(tl)).c_str());
            QVERIFY(noted(tl));
        }
    }
};

QTEST_APPLESS_MAIN(TstNoAlign)
#include "tst_noalign.moc"
