// Ids in Chrome/Kineto traces (pid, tid, flow id) are read as the integers their JSON tokens
// spell (ChromeTraceParser::parseId), never through the µs → ns time conversion: 2^53 + 1 keeps
// every digit, the extremes of int64 (and of uint64 for flow ids) are exact, and an id that is no
// integer (a fraction, an exponent, past 64 bits) is a BadId problem naming it — its events kept
// on a track of their own, its flow points paired by their text. Cost: a few ms.
#include "tests/common/problemkinds.h"
#include "tests/timeline/testlogs.h"

#include "timeline/load/parse/chrome/chrometraceparser.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <climits>
#include <string>

using namespace syncline;
using namespace syncline::load;

namespace {

using Id = ChromeTraceParser::IdToken;

Id parse(const std::string &token, int64_t &v, bool asUnsigned = false)
{
    return ChromeTraceParser::parseId(token, v, asUnsigned);
}

const EventTrack *trackWithTid(const ParsedFile &f, int64_t tid)
{
    for (const EventTrack &t : f.worker.tracks)
        if (t.tid == tid)
            return &t;
    return nullptr;
}

} // namespace

class TstChromeIds : public QObject
{
    Q_OBJECT
private slots:
    void integersAreExact()
    {
        int64_t v = 0;
        QCOMPARE(parse("9007199254740993", v), Id::Integer); // 2^53 + 1: no double in between
        QCOMPARE(v, int64_t(9007199254740993));
        QCOMPARE(parse("9223372036854775807", v), Id::Integer);
        QCOMPARE(v, INT64_MAX);
        QCOMPARE(parse("-9223372036854775808", v), Id::Integer);
        QCOMPARE(v, INT64_MIN);
        QCOMPARE(parse("-5", v), Id::Integer);
        QCOMPARE(v, int64_t(-5));
        QCOMPARE(parse("0", v), Id::Integer);
        QCOMPARE(v, int64_t(0));
        QCOMPARE(parse("12.000 ", v), Id::Integer); // a float-writing exporter's integer
        QCOMPARE(v, int64_t(12));
    }

    void nonIntegersAreSaidSo()
    {
        int64_t v = 77;
        QCOMPARE(parse("\"gpu 0\"", v), Id::Text);
        QCOMPARE(parse("{\"local\":\"0x1\"}", v), Id::Text);
        QCOMPARE(parse("", v), Id::Text);
        QCOMPARE(parse("1.5", v), Id::NotInteger);
        QCOMPARE(parse("1e3", v), Id::NotInteger);
        QCOMPARE(parse("-", v), Id::NotInteger);
        QCOMPARE(parse("12.", v), Id::NotInteger);
        QCOMPARE(parse("true", v), Id::NotInteger);
        QCOMPARE(parse("9223372036854775808", v), Id::OutOfRange);   // 2^63
        QCOMPARE(parse("-9223372036854775809", v), Id::OutOfRange);  // -2^63 - 1
        QCOMPARE(parse("99999999999999999999999", v), Id::OutOfRange);
        QCOMPARE(v, int64_t(77)); // untouched by every refusal
        // Flow ids are 64-bit patterns: up to 2^64 - 1.
        QCOMPARE(parse("18446744073709551615", v, true), Id::Integer);
        QCOMPARE(uint64_t(v), UINT64_MAX);
        QCOMPARE(parse("18446744073709551616", v, true), Id::OutOfRange);
    }

    void traceIdsRoundTrip()
    {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/ids.json";
        const std::string ev = R"("ph":"X","ts":10,"dur":5,"name":"k")";
        testlogs::write(
            path,
            std::string("{\"traceEvents\":[") +
                R"({"pid":9007199254740993,"tid":9007199254740993,)" + ev + "}," +
                R"({"pid":1,"tid":-9223372036854775808,)" + ev + "}," +
                R"({"pid":1,"tid":9223372036854775808,)" + ev + "}," +
                R"({"pid":1,"tid":2.5,)" + ev + "}," +
                R"({"pid":1,"tid":"stream 7",)" + ev + "}," +
                R"({"pid":1,"tid":3,"ph":"s","ts":11,"name":"f","cat":"c","id":9007199254740993},)" +
                R"({"pid":1,"tid":3,"ph":"f","ts":12,"name":"f","cat":"c","id":18446744073709551615},)" +
                R"({"pid":1,"tid":3,"ph":"f","ts":13,"name":"f","cat":"c","id":1e3},)" +
                R"({"pid":1,"tid":3,"ph":"f","ts":14,"name":"f","cat":"c","id":"0x1f"})" + "]}");
        const ParsedFile f = ChromeTraceParser::parseFile(path);
        QVERIFY(f.usable);
        const EventTrack *big = trackWithTid(f, 9007199254740993);
        QVERIFY(big);
        QCOMPARE(big->pid, int64_t(9007199254740993));
        QVERIFY(trackWithTid(f, INT64_MIN));
        // 2^63 and 2.5 are no int64: tracks of their own with synthetic (negative) ids, and said.
        QCOMPARE(problemkinds::count(f.problems, LoadProblem::Kind::BadId, "tid 9223372036854775808"), 1);
        QCOMPARE(problemkinds::count(f.problems, LoadProblem::Kind::BadId, "tid 2.5"), 1);
        QCOMPARE(problemkinds::count(f.problems, LoadProblem::Kind::BadId, "flow id 1e3"), 1);
        QCOMPARE(problemkinds::count(f.problems, LoadProblem::Kind::BadId), 3); // not "stream 7"
        QCOMPARE(f.worker.tracks.size(), size_t(6));
        QCOMPARE(std::count_if(f.worker.tracks.begin(), f.worker.tracks.end(),
                               [](const EventTrack &t) { return t.tid < 0 && t.tid != INT64_MIN; }),
                 3); // 2^63, 2.5 and "stream 7"
        QCOMPARE(f.flows.size(), size_t(4));
        QCOMPARE(f.flows[0].id, uint64_t(9007199254740993));
        QCOMPARE(f.flows[1].id, UINT64_MAX);
        QCOMPARE(f.flows[2].id, uint64_t(std::hash<std::string_view>()("1e3")));
        QCOMPARE(f.flows[3].id, uint64_t(std::hash<std::string_view>()("\"0x1f\"")));
    }
};

QTEST_APPLESS_MAIN(TstChromeIds)
#include "tst_chromeids.moc"
