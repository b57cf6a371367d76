// ChunkCodec on its own: an event chunk and a `msg` chunk decode to exactly what was encoded
// (times, durations, names, nesting, flags, args; a window keeps only what it overlaps, with
// parents re-pointed), and bytes that are not exactly the chunk's events are refused: a cut
// chunk, a chunk read against another entry, and times outside the readable range (|t| <= 2^62
// ns, the parser's rule), and events that break the track's nesting or order — an event store
// holding one is corrupt, never loaded.
#include "tests/timeline/testlogs.h"

#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/build/timelinebuilder.h"
#include "timeline/load/parse/log/logparser.h"
#include "timeline/load/store/chunkcodec.h"
#include "timeline/load/store/windowreader.h"

#include <QtTest>

#include <string>
#include <tuple>
#include <vector>

using namespace syncline;
using namespace syncline::load;

namespace {

// A parsed, sorted and nested file: tid 1 a step with two children (one with args), an
// instant, and an X; tid 2 one event; messages on both.
ParsedFile sampleFile()
{
    using namespace testlogs;
    const std::string text =
        header(0) + begin(1000, 1, "step", "{\"step\":1}") + begin(1100, 1, "fwd") +
        end(1400, 1, "fwd") + begin(1500, 1, "bwd", "{\"k\":\"v\"}") + end(1900, 1, "bwd") +
        complete(1950, 20, 1, "x") +
        "{\"t\":\"I\",\"ts\":1960,\"tid\":1,\"name\":\"mark\"}\n" + end(2000, 1, "step") +
        begin(1200, 2, "io") + end(1300, 2, "io") +
        "{\"t\":\"msg\",\"ts\":1250,\"tid\":2,\"dir\":\"send\",\"peer\":1,\"id\":\"a1\"}\n"
        "{\"t\":\"msg\",\"ts\":1350,\"tid\":1,\"dir\":\"recv\",\"peer\":1,\"id\":\"b22\"}\n";
    LogParser p("t.log");
    p.feed(text);
    ParsedFile f = p.finish();
    EventKindLookup kinds;
    TimelineBuilder::prepareFile(f, kinds);
    return f;
}

struct Decoded
{
    bool ok = false;
    std::string why;
    EventTrack track;
    ArgStore args;
};

Decoded decode(std::string_view bytes, const EventStore::Chunk &c, size_t names,
               const WindowTest *in = nullptr)
{
    Decoded d;
    ChunkCodec::TrackScratch s;
    s.clearTrack();
    const std::vector<int64_t> noRule;
    const ChunkCodec::Keep keep{in, noRule, names};
    d.ok = ChunkCodec::decodeEvents(bytes, c, 0, keep, d.args, nullptr, s, &d.why);
    if (d.ok)
        ChunkCodec::fillTrack(s, false, d.track);
    return d;
}

// An event chunk of one track holding [start, end) events given directly (no parse: times a
// parse would refuse), nested flat.
std::string chunkOf(const std::vector<std::pair<int64_t, int64_t>> &events, EventStore::Chunk &c)
{
    EventTrack t;
    for (const auto &[a, b] : events) {
        t.localStart.push_back(a);
        t.localEnd.push_back(b);
        t.nameId.push_back(0);
        t.flags.push_back(EventInterval);
        t.parent.push_back(-1);
        t.depth.push_back(0);
    }
    ArgStore args;
    return ChunkCodec::encodeEvents(t, 0, t.count(), args, c);
}

// Tracks given as (start, end, parent, depth) per event: a valid nesting, and ones that break
// one of EventTrack's invariants with every value in range.
struct Nesting
{
    const char *name;
    std::vector<std::tuple<int64_t, int64_t, int32_t, uint16_t>> events;
    bool valid;
};
const Nesting kNestings[] = {
    {"valid", {{0, 100, -1, 0}, {10, 50, 0, 1}, {20, 30, 1, 2}, {60, 90, 0, 1}, {200, 200, -1, 0}},
     true},
    {"depth not the parent's + 1", {{0, 100, -1, 0}, {10, 50, 0, 1}, {20, 30, 1, 1}}, false},
    {"a root not at depth 0", {{0, 100, -1, 1}}, false},
    {"a child past its parent's end", {{0, 100, -1, 0}, {10, 150, 0, 1}}, false},
    {"not sorted by start", {{50, 100, -1, 0}, {10, 20, -1, 0}}, false},
    {"an end before its start", {{50, 40, -1, 0}}, false},
};

} // namespace

class TstChunkCodec : public QObject
{
    Q_OBJECT

private slots:
    void eventsRoundTrip()
    {
        const ParsedFile f = sampleFile();
        QCOMPARE(f.worker.tracks.size(), size_t(2));
        for (const EventTrack &t : f.worker.tracks) {
            EventStore::Chunk c;
            const std::string bytes = ChunkCodec::encodeEvents(t, 0, t.count(), f.args, c);
            QCOMPARE(c.count, uint32_t(t.count()));
            QCOMPARE(c.length, uint32_t(bytes.size()));
            const Decoded d = decode(bytes, c, f.names.size());
            QVERIFY2(d.ok, d.why.c_str());
            QCOMPARE(d.track.count(), t.count());
            for (uint32_t i = 0; i < t.count(); ++i) {
                QCOMPARE(d.track.localStart[i], t.localStart[i]);
                QCOMPARE(d.track.localEnd[i], t.localEnd[i]);
                QCOMPARE(d.track.nameId[i], t.nameId[i]);
                QCOMPARE(d.track.parent[i], t.parent[i]);
                QCOMPARE(d.track.depth[i], t.depth[i]);
                QCOMPARE(d.track.flags[i], t.flags[i]);
                const int64_t a = t.argsId(i), b = d.track.argsId(i);
                QCOMPARE(a >= 0, b >= 0);
                if (a >= 0)
                    QCOMPARE(d.args.text(uint32_t(b)), f.args.text(uint32_t(a)));
            }
        }
    }

    // A window keeps what overlaps it and the ancestors of what it keeps, parents re-pointed.
    void windowKeepsOverlapAndAncestors()
    {
        const ParsedFile f = sampleFile();
        const EventTrack &t = f.worker.tracks[0]; // step [1000,2000] > fwd, bwd, x, mark
        EventStore::Chunk c;
        const std::string bytes = ChunkCodec::encodeEvents(t, 0, t.count(), f.args, c);
        const sync::ClockMap identity; // the identity
        const WindowTest in(identity, 1600, 1700); // only bwd [1500,1900] and its parent step
        const Decoded d = decode(bytes, c, f.names.size(), &in);
        QVERIFY2(d.ok, d.why.c_str());
        QCOMPARE(d.track.count(), size_t(2));
        QCOMPARE(f.names.name(d.track.nameId[0]), std::string_view("step"));
        QCOMPARE(f.names.name(d.track.nameId[1]), std::string_view("bwd"));
        QCOMPARE(d.track.parent[1], int32_t(0));
        QCOMPARE(d.track.depth[1], uint16_t(1));
    }

    void messagesRoundTrip()
    {
        const ParsedFile f = sampleFile();
        QCOMPARE(f.messages.size(), size_t(2));
        std::string bytes;
        std::vector<EventStore::Chunk> chunks;
        ChunkCodec::encodeMessages(f.messages, 0, 0, bytes, chunks);
        QCOMPARE(chunks.size(), size_t(1));
        MessageLog out;
        std::string why;
        QVERIFY2(ChunkCodec::decodeMessages(bytes, chunks[0], f.worker.tracks.size(), nullptr, out,
                                            &why),
                 why.c_str());
        QCOMPARE(out.size(), f.messages.size());
        for (size_t i = 0; i < out.size(); ++i) {
            QCOMPARE(out[i].localNs, f.messages[i].localNs);
            QCOMPARE(out.send(i), f.messages.send(i));
            QCOMPARE(out.id(i), f.messages.id(i));
            QCOMPARE(out.track(i), f.messages.track(i));
        }
        // A store of fewer tracks than a record names is corrupt.
        MessageLog none;
        QVERIFY(!ChunkCodec::decodeMessages(bytes, chunks[0], 1, nullptr, none, &why));
    }

    // Every cut of an event chunk is refused, as is the chunk read against another's entry.
    void cutOrMismatchedChunkRefused()
    {
        const ParsedFile f = sampleFile();
        const EventTrack &t = f.worker.tracks[0];
        EventStore::Chunk c;
        const std::string bytes = ChunkCodec::encodeEvents(t, 0, t.count(), f.args, c);
        for (size_t n = 0; n < bytes.size(); ++n) {
            EventStore::Chunk cut = c;
            cut.length = uint32_t(n);
            QVERIFY2(!decode(std::string_view(bytes).substr(0, n), cut, f.names.size()).ok,
                     qPrintable(QString::number(n)));
        }
        EventStore::Chunk more = c;
        ++more.count;
        QVERIFY(!decode(bytes, more, f.names.size()).ok);
        QVERIFY(!decode(bytes, c, 1).ok); // name ids beyond the store's names
    }

    // Times the parser would never give (beyond ±2^62 ns) make a chunk corrupt, whether a start
    // or an end, and a delta that would overflow int64 is refused, not wrapped.
    void timesOutOfRangeRefused_data()
    {
        QTest::addColumn<qint64>("start");
        QTest::addColumn<qint64>("end");
        const int64_t lim = int64_t(1) << 62;
        QTest::newRow("start past +2^62") << qint64(lim + 1) << qint64(lim + 2);
        QTest::newRow("start before -2^62") << qint64(-lim - 1) << qint64(0);
        QTest::newRow("end past +2^62") << qint64(0) << qint64(lim + 1);
        QTest::newRow("int64 extremes") << qint64(INT64_MIN) << qint64(INT64_MAX);
    }
    void timesOutOfRangeRefused()
    {
        QFETCH(qint64, start);
        QFETCH(qint64, end);
        EventStore::Chunk c;
        const std::string bytes = chunkOf({{0, 10}, {int64_t(start), int64_t(end)}}, c);
        const Decoded d = decode(bytes, c, 1);
        QVERIFY(!d.ok);
        QVERIFY2(d.why.find("corrupt") != std::string::npos, d.why.c_str());
        // The edges themselves are readable.
        const int64_t lim = int64_t(1) << 62;
        EventStore::Chunk e;
        const std::string edge = chunkOf({{-lim, lim}, {lim, lim}}, e);
        QVERIFY(decode(edge, e, 1).ok);
    }

    // A chunk whose events break the track's invariants is corrupt, though every value in it
    // is in range (an edited store whose hashes were re-computed): the views, reports and
    // exports index parents and depths without checking them.
    void brokenNestingRefused_data()
    {
        QTest::addColumn<int>("row");
        for (size_t i = 0; i < std::size(kNestings); ++i)
            QTest::newRow(kNestings[i].name) << int(i);
    }
    void brokenNestingRefused()
    {
        QFETCH(int, row);
        const Nesting &n = kNestings[size_t(row)];
        EventTrack t;
        for (const auto &[a, b, parent, depth] : n.events) {
            t.localStart.push_back(a);
            t.localEnd.push_back(b);
            t.nameId.push_back(0);
            t.flags.push_back(0);
            t.parent.push_back(parent);
            t.depth.push_back(depth);
        }
        ArgStore args;
        EventStore::Chunk c;
        const std::string bytes = ChunkCodec::encodeEvents(t, 0, t.count(), args, c);
        const Decoded d = decode(bytes, c, 1);
        QCOMPARE(d.ok, n.valid);
        if (n.valid) {
            QCOMPARE(d.track.parent, t.parent);
            QCOMPARE(d.track.depth, t.depth);
        } else {
            QVERIFY2(d.why.find("nesting") != std::string::npos ||
                         d.why.find("out of order") != std::string::npos,
                     d.why.c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TstChunkCodec)
#include "tst_chunkcodec.moc"
