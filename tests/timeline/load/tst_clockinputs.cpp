// ClockInputs on its own: a clock-only file (ClockCorrector::keepClockInputs of a parsed log)
// decodes to exactly what the correction reads of it — the worker's identity from the header
// line, the whole-file fields, sync samples, wall-clock pairs, names, the kept events with their
// nesting and args, the `msg` records with their tracks — and bytes that are not such a record
// are refused with a reason: cut, another kind of record, a flipped byte (the record's hash),
// and forged records whose hashes are right but whose content no parse gives (a sync sample
// with t4 < t1, wall pairs out of order, events out of order, a message on a track that does
// not exist, a header line that is not one).
#include "tests/timeline/testlogs.h"

#include "timeline/load/build/clockcorrector.h"
#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/build/timelinebuilder.h"
#include "timeline/load/parse/log/logparser.h"
#include "timeline/load/store/clockinputs.h"

#include <QtTest>

#include <string>

using namespace syncline;
using namespace syncline::load;

namespace {

const std::string kSync1 = "{\"t\":\"sync\",\"burst\":0,\"seq\":0,\"ref\":\"ts:1\",\"t1\":1100,"
                           "\"t2\":5100,\"t3\":5120,\"t4\":1160}\n";
const std::string kSync2 = "{\"t\":\"sync\",\"burst\":1,\"seq\":0,\"ref\":\"ts:1\",\"t1\":2100,"
                           "\"t2\":6100,\"t3\":6110,\"t4\":2150}\n";

// Rank 3's log: a step holding an allreduce (with args) holding a forward; an allreduce on a
// second thread; two messages; two sync samples.
std::string logText()
{
    using namespace testlogs;
    return header(3, 1, "node-q") + kSync1 + begin(1200, 1, "step", "{\"step\":1}") +
           begin(1300, 1, "allreduce", "{\"seq\":7}") + begin(1350, 1, "forward") +
           end(1400, 1, "forward") + end(1500, 1, "allreduce") + end(1900, 1, "step") +
           complete(1250, 100, 2, "allreduce") +
           "{\"t\":\"msg\",\"ts\":1270,\"tid\":2,\"dir\":\"send\",\"peer\":1,\"id\":\"g-1-3\"}\n"
           "{\"t\":\"msg\",\"ts\":1600,\"tid\":1,\"dir\":\"recv\",\"peer\":1,\"id\":\"g-1-1\"}\n" +
           kSync2;
}

ParsedFile clockOnlyFile()
{
    LogParser p("/jobs/a/timer_events.3.log");
    p.feed(logText());
    ParsedFile f = p.finish();
    EventKindLookup kinds;
    TimelineBuilder::prepareFile(f, kinds);
    ClockCorrector::keepClockInputs(f, kinds, "");
    return f;
}

std::string headerLine()
{
    return testlogs::header(3, 1, "node-q");
}

std::string refusal(const std::string &bytes)
{
    std::string why;
    int64_t size = 0;
    const std::optional<ParsedFile> f = ClockInputs::decode(bytes, &size, &why);
    return f ? std::string("decoded") : why;
}

} // namespace

class TestClockInputs : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip()
    {
        const ParsedFile f = clockOnlyFile();
        QCOMPARE(f.worker.tracks.size(), size_t(2));
        QCOMPARE(f.worker.tracks[0].count(), size_t(1)); // the allreduce alone: the rest dropped
        const std::string bytes = ClockInputs::encode(f, headerLine(), 123456);
        std::string why;
        int64_t size = 0;
        const std::optional<ParsedFile> g = ClockInputs::decode(bytes, &size, &why);
        QVERIFY2(g.has_value(), why.c_str());
        QCOMPARE(size, int64_t(123456));
        QCOMPARE(g->path, f.path);
        QCOMPARE(g->usable, f.usable);
        QCOMPARE(g->rankKnown, f.rankKnown);
        const WorkerInfo &a = f.worker.info, &b = g->worker.info;
        QCOMPARE(b.rank, 3);
        QCOMPARE(b.restart, 1);
        QCOMPARE(b.host, std::string("node-q"));
        QCOMPARE(b.sourceFile, a.sourceFile);
        QCOMPARE(b.anchorMonoNs, a.anchorMonoNs);
        QCOMPARE(b.anchorWallNs, a.anchorWallNs);
        QCOMPARE(b.anchorSpreadNs, a.anchorSpreadNs);
        QCOMPARE(b.firstLocalNs, a.firstLocalNs);
        QCOMPARE(b.lastLocalNs, int64_t(2150));
        QCOMPARE(b.closedCleanly, a.closedCleanly);
        QCOMPARE(g->worker.refId, std::string("ts:1"));
        QCOMPARE(g->worker.samples.size(), size_t(2));
        QCOMPARE(g->worker.samples[1].t2, int64_t(6100));
        QCOMPARE(g->worker.samples[1].burst, 1);
        QCOMPARE(g->names.size(), f.names.size());
        for (uint32_t i = 0; i < f.names.size(); ++i)
            QCOMPARE(g->names.name(i), f.names.name(i));
        QCOMPARE(g->worker.tracks.size(), f.worker.tracks.size());
        for (size_t t = 0; t < f.worker.tracks.size(); ++t) {
            const EventTrack &x = f.worker.tracks[t], &y = g->worker.tracks[t];
            QCOMPARE(y.tid, x.tid);
            QCOMPARE(y.threadName, x.threadName);
            QCOMPARE(y.localStart, x.localStart);
            QCOMPARE(y.localEnd, x.localEnd);
            QCOMPARE(y.nameId, x.nameId);
            QCOMPARE(y.parent, x.parent);
            QCOMPARE(y.depth, x.depth);
            QCOMPARE(y.flags, x.flags);
            for (uint32_t e = 0; e < x.count(); ++e) {
                QCOMPARE(y.argsId(e) >= 0, x.argsId(e) >= 0);
                if (x.argsId(e) >= 0)
                    QCOMPARE(g->args.text(uint32_t(y.argsId(e))),
                             f.args.text(uint32_t(x.argsId(e))));
            }
        }
        QCOMPARE(g->worker.tracks[0].count() + g->worker.tracks[1].count(), size_t(2));
        QCOMPARE(g->messages.size(), size_t(2));
        for (size_t i = 0; i < 2; ++i) {
            QCOMPARE(g->messages.id(i), f.messages.id(i));
            QCOMPARE(g->messages.send(i), f.messages.send(i));
            QCOMPARE(g->messages[i].localNs, f.messages[i].localNs);
            QCOMPARE(g->messages.track(i), f.messages.track(i));
        }
    }

    void refusesDamagedBytes()
    {
        const std::string bytes = ClockInputs::encode(clockOnlyFile(), headerLine(), 1);
        QVERIFY(refusal(bytes.substr(0, bytes.size() - 3)).find("refused") != std::string::npos);
        QVERIFY(refusal(std::string(64, 'x')).find("bad magic") != std::string::npos);
        std::string flipped = bytes;
        flipped[flipped.size() / 2] ^= 0x10;
        QVERIFY(refusal(flipped).find("hash mismatch") != std::string::npos);
    }

    void refusesForgedContent()
    {
        // Each record below has every hash right (encode wrote it); what it holds is what no
        // parse of a log gives.
        ParsedFile f = clockOnlyFile();
        f.worker.samples[0].t4 = f.worker.samples[0].t1 - 1;
        QVERIFY(refusal(ClockInputs::encode(f, headerLine(), 1)).find("sync sample") !=
                std::string::npos);

        f = clockOnlyFile();
        f.worker.wallPairs = {{500, 900, 1}, {400, 950, 1}};
        QVERIFY(refusal(ClockInputs::encode(f, headerLine(), 1)).find("wall-clock pair") !=
                std::string::npos);

        f = clockOnlyFile();
        EventTrack &t = f.worker.tracks[0];
        f.addEvent(t, t.localStart[0] - 50, t.localStart[0] - 40, t.nameId[0], 0);
        t.parent.push_back(-1);
        t.depth.push_back(0);
        QCOMPARE(refusal(ClockInputs::encode(f, headerLine(), 1)),
                 std::string("clock inputs refused: events out of order"));

        f = clockOnlyFile();
        f.messages.add(1700, true, 0, "x", 9); // track 9 of 2
        QVERIFY(refusal(ClockInputs::encode(f, headerLine(), 1)).find("corrupt chunk") !=
                std::string::npos);

        f = clockOnlyFile();
        std::string noNewline = headerLine();
        noNewline.pop_back();
        QCOMPARE(refusal(ClockInputs::encode(f, noNewline, 1)),
                 std::string("clock inputs refused: not a header line"));

        f = clockOnlyFile();
        QCOMPARE(refusal(ClockInputs::encode(f, headerLine(), -5)),
                 std::string("clock inputs refused: inconsistent worker fields"));
    }
};

QTEST_APPLESS_MAIN(TestClockInputs)
#include "tst_clockinputs.moc"
