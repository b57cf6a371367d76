// JobLoader::splitClocks, the correction of a split load (syncline.dask): given its logs' clock
// inputs one at a time, it decodes each before asking for the next (an input's bytes are
// overwritten as soon as the next is asked for, and the clocks do not change), and gives every
// worker exactly the clocks a load of the whole job on one machine gives it — also when every
// log is synced and the decoded inputs keep only the events the correction aligns on
// (`everyLogSynced`): a job of four ranks on four hosts with interleaved message ids, an id
// sent and received twice (the last of each pairs), unpaired records, recognised collectives
// (`allreduce`), a configured one (`gate`), others (`forward`), with and without --align-on and
// alignment. A job with a rank without sync samples is corrected from everything (and refused
// when said to be synced); ClockInputs::synced tells the two apart and refuses bytes that are
// not clock inputs.
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"
#include "timeline/load/store/clockinputs.h"

#include <QTemporaryDir>
#include <QtTest>

#include <optional>
#include <string>
#include <vector>

using namespace syncline;
using namespace syncline::load;

namespace {

// Rank h on host-h: its clock reads the reference − off_h; sync bursts unless `unsynced`;
// per step k an allreduce {"step":k}, a gate and a forward, and messages to the next rank whose
// ids interleave (m-k, then m-(k-1) is received) and repeat ("again" twice each way); rank 0
// sends one message nobody receives, rank 3 receives one nobody sent. The odd ranks' gate is
// on a second thread and written first, so their logs number the names in another order (each
// log's ids are its own).
std::string rankLog(int h, int ranks, bool unsynced)
{
    using namespace testlogs;
    const int64_t off = 400'000'000 - int64_t(h) * 150'000'000;
    std::string text = header(h, 0, "host-" + std::to_string(h), 1000,
                              kWallEpochNs + 1000 + off + h * 3'000, "boot-" + std::to_string(h));
    for (int burst = 0; burst < 12 && !unsynced; ++burst)
        for (int seq = 0; seq < 3; ++seq) {
            const int64_t t1 = 5'000'000 + burst * 50'000'000LL + seq * 200'000;
            const int64_t t2 = t1 + off + 15'000 + h * 500, t3 = t2 + 1'000,
                          t4 = t3 - off + 15'000 + seq * 300;
            text += "{\"t\":\"sync\",\"burst\":" + std::to_string(burst) + ",\"seq\":" +
                    std::to_string(seq) + ",\"ref\":\"srv\",\"t1\":" + std::to_string(t1) +
                    ",\"t2\":" + std::to_string(t2) + ",\"t3\":" + std::to_string(t3) +
                    ",\"t4\":" + std::to_string(t4) + "}\n";
        }
    auto msg = [&](int64_t ts, bool send, int peer, const std::string &id) {
        return "{\"t\":\"msg\",\"ts\":" + std::to_string(ts) + ",\"tid\":1,\"dir\":\"" +
               (send ? "send" : "recv") + "\",\"peer\":" + std::to_string(peer) + ",\"id\":\"" +
               id + "\"}\n";
    };
    const int next = (h + 1) % ranks, prev = (h + ranks - 1) % ranks;
    for (int k = 0; k < 20; ++k) {
        const int64_t t = 20'000'000 + k * 25'000'000LL - off; // the reference's step k, local
        const std::string gate = begin(t + 3'000'000, 1 + h % 2, "gate",
                                       "{\"seq\":" + std::to_string(k) + "}") +
                                 end(t + 4'000'000 + h * 5'000, 1 + h % 2, "gate");
        text += begin(t, 1, "step", "{\"step\":" + std::to_string(k) + "}");
        if (h % 2 == 1) // on a thread of its own, written first: the log names it first
            text += gate;
        text += begin(t + 100'000, 1, "allreduce", "{\"step\":" + std::to_string(k) + "}");
        text += begin(t + 120'000, 1, "forward") + end(t + 300'000, 1, "forward");
        text += end(t + 2'000'000 + h * 7'000, 1, "allreduce");
        text += msg(t + 2'100'000, true, next, "m-" + std::to_string(h) + "-" + std::to_string(k));
        if (k > 0)
            text += msg(t + 2'150'000, false, prev,
                        "m-" + std::to_string(prev) + "-" + std::to_string(k - 1));
        if (h % 2 == 0)
            text += gate;
        if (k == 5 || k == 9) // the same id twice, both ways: the last send and receive pair
            text += msg(t + 5'000'000, true, next, "again-" + std::to_string(h)) +
                    msg(t + 5'200'000, false, prev, "again-" + std::to_string(prev));
        text += end(t + 9'000'000, 1, "step");
    }
    if (h == 0)
        text += msg(600'000'000, true, 1, "lost");
    if (h == ranks - 1)
        text += msg(600'000'000, false, 0, "unsent");
    return text;
}

std::vector<std::string> writeJob(const QString &dir, bool rank3Unsynced)
{
    const std::string d = dir.toStdString();
    testlogs::write(d + "/timer_config.json",
                    "{\"event_kinds\":[{\"name\":\"gate\",\"category\":\"collective\"}]}\n");
    std::vector<std::string> logs;
    for (int h = 0; h < 4; ++h) {
        logs.push_back(d + "/timer_events." + std::to_string(h) + ".log");
        testlogs::write(logs.back(), rankLog(h, 4, rank3Unsynced && h == 3));
    }
    return logs;
}

struct Split
{
    SplitInputs in;
    std::vector<std::string> inputs; // each log's clock inputs
};

Split clockInputs(const QString &dir, const std::string &alignOn)
{
    Split s;
    s.in = JobLoader::splitInputs({dir.toStdString()}, RankSet());
    for (const std::string &log : s.in.logs) {
        std::string error;
        s.inputs.push_back(
            JobLoader::clockInputs(log, s.in.configPath, s.in.configText, alignOn, &error));
        if (s.inputs.back().empty())
            qFatal("%s", error.c_str());
    }
    return s;
}

LoadOptions optionsOf(const std::string &alignOn, bool align)
{
    LoadOptions o;
    o.alignOn = alignOn;
    o.alignCollectives = align;
    o.threads = 1;
    return o;
}

// splitClocks fed one input at a time from one buffer, which is overwritten with garbage as
// soon as the next input is asked for: an input still needed after that would change the result.
SplitClocks streamed(const Split &s, const LoadOptions &o, bool everyLogSynced, size_t *asked)
{
    std::string buffer;
    *asked = 0;
    return JobLoader::splitClocks(
        o, s.in.configPath, s.in.configText,
        [&]() -> std::optional<std::string_view> {
            buffer.assign(buffer.size(), '\x5a');
            if (*asked == s.inputs.size())
                return std::nullopt;
            buffer = s.inputs[(*asked)++];
            return std::string_view(buffer);
        },
        everyLogSynced);
}

// Each worker's clocks from loading that log alone with its plan, against the whole load's.
void compareWithFullLoad(const QString &dir, const SplitClocks &split, const LoadOptions &given)
{
    LoadOptions o = given;
    o.paths = {dir.toStdString()};
    o.writeIndex = false;
    const LoadResult full = JobLoader::load(o);
    QVERIFY2(full.timeline, full.fatalError.c_str());
    QCOMPARE(split.workers.size(), full.timeline->workers.size());
    for (size_t i = 0; i < split.workers.size(); ++i) {
        const Worker &want = full.timeline->workers[i];
        LoadOptions one;
        one.paths = {split.workers[i].log};
        one.clockPlan = split.workers[i].clocks;
        one.writeIndex = false;
        const LoadResult part = JobLoader::load(one);
        QVERIFY2(part.timeline, part.fatalError.c_str());
        const Worker &got = part.timeline->workers.at(0);
        QCOMPARE(got.info.sourceFile, want.info.sourceFile);
        QCOMPARE(int(got.clock.method), int(want.clock.method));
        QCOMPARE(got.clock.boundNs, want.clock.boundNs);
        QCOMPARE(got.clock.offsetNs, want.clock.offsetNs);
        QCOMPARE(got.corrected.segments().size(), want.corrected.segments().size());
        for (int64_t t = 0; t < 800'000'000; t += 3'999'999)
            QCOMPARE(got.corrected.toGlobal(t), want.corrected.toGlobal(t));
        QCOMPARE(part.timeline->clockNotes, full.timeline->clockNotes);
        QCOMPARE(part.timeline->causality.violationsBefore,
                 full.timeline->causality.violationsBefore);
        QCOMPARE(part.timeline->causality.constraints, full.timeline->causality.constraints);
    }
}

std::vector<std::string> plans(const SplitClocks &c)
{
    std::vector<std::string> out;
    for (const SplitWorker &w : c.workers)
        out.push_back(w.log + '\n' + std::to_string(w.rank) + '\n' + w.clocks);
    return out;
}

} // namespace

class TestSplitClocks : public QObject
{
    Q_OBJECT

private slots:
    void synced_data()
    {
        QTest::addColumn<QString>("alignOn");
        QTest::addColumn<bool>("align");
        QTest::newRow("recognised and configured") << QString() << true;
        QTest::newRow("--align-on allreduce") << QString("allreduce") << true;
        QTest::newRow("--no-align") << QString() << false;
    }

    void synced()
    {
        QFETCH(QString, alignOn);
        QFETCH(bool, align);
        QTemporaryDir dir;
        writeJob(dir.path(), false);
        const Split s = clockInputs(dir.path(), alignOn.toStdString());
        for (const std::string &b : s.inputs)
            QVERIFY(ClockInputs::synced(b));
        const LoadOptions o = optionsOf(alignOn.toStdString(), align);
        const SplitClocks whole =
            JobLoader::splitClocks(o, s.in.configPath, s.in.configText, s.inputs);
        QVERIFY2(whole.fatalError.empty(), whole.fatalError.c_str());
        size_t asked = 0;
        const SplitClocks cut = streamed(s, o, true, &asked);
        QVERIFY2(cut.fatalError.empty(), cut.fatalError.c_str());
        QCOMPARE(asked, s.inputs.size());
        QVERIFY(plans(cut) == plans(whole)); // byte for byte
        compareWithFullLoad(dir.path(), cut, o);
    }

    void unsyncedRank()
    {
        QTemporaryDir dir;
        writeJob(dir.path(), true);
        const Split s = clockInputs(dir.path(), "");
        QVERIFY(!ClockInputs::synced(s.inputs.at(3)));
        QVERIFY(ClockInputs::synced(s.inputs.at(0)));
        const LoadOptions o = optionsOf("", true);
        size_t asked = 0;
        const SplitClocks all = streamed(s, o, false, &asked);
        QVERIFY2(all.fatalError.empty(), all.fatalError.c_str());
        QCOMPARE(asked, s.inputs.size());
        QVERIFY(plans(all) ==
                plans(JobLoader::splitClocks(o, s.in.configPath, s.in.configText, s.inputs)));
        compareWithFullLoad(dir.path(), all, o);
        // Said to be synced, it is refused (never corrected from less than it needs).
        const SplitClocks refused = streamed(s, o, true, &asked);
        QVERIFY(refused.workers.empty());
        QCOMPARE(refused.fatalError, std::string("input 3: a log without sync samples, though "
                                                 "every log was said to have them"));
    }

    void notClockInputs()
    {
        QTemporaryDir dir;
        writeJob(dir.path(), false);
        const Split s = clockInputs(dir.path(), "");
        const std::string &b = s.inputs.at(0);
        QVERIFY(!ClockInputs::synced(std::string()));
        QVERIFY(!ClockInputs::synced(b.substr(0, b.size() / 2)));
        std::string flipped = b;
        flipped[flipped.size() / 2] ^= 1;
        QVERIFY(!ClockInputs::synced(flipped));
        QVERIFY(!ClockInputs::synced(std::string(64, 'x')));
    }
};

QTEST_APPLESS_MAIN(TestSplitClocks)
#include "tst_splitclocks.moc"
