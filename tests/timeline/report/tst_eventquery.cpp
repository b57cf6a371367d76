// EventQuery (report/eventquery.h): parsing (fields, operators, units, quotes, regex, negation,
// errors with the reason) and the args scanner (nested keys, strings holding brackets and
// quotes, malformed or non-object texts never match and never throw).
#include "timeline/report/eventquery.h"

#include <QtTest>

using namespace syncline;

class TstEventQuery : public QObject
{
    Q_OBJECT
private slots:
    void parsesTerms();
    void errorsSayWhy();
    void argsScanner();
    void argsTerms();
    void namesAndTracks();
};

void TstEventQuery::parsesTerms()
{
    std::string err;
    auto q = EventQuery::parse("forward rank:2-5 dur>=1.5ms -host:b args.step=12 /^a.*z$/", &err);
    QVERIFY2(q, err.c_str());
    QCOMPARE(q->terms().size(), size_t(6));
    QCOMPARE(int(q->terms()[1].op), int(EventQuery::Op::Range));
    QCOMPARE(q->terms()[1].high, 5.0);
    QCOMPARE(q->terms()[2].number, 1.5e6);
    QVERIFY(q->terms()[3].negate);
    QCOMPARE(q->terms()[4].argPath, std::string("step"));
    QCOMPARE(int(q->terms()[5].op), int(EventQuery::Op::Regex));
    QVERIFY(q->hasNameTerms() && q->hasTrackTerms() && q->hasEventTerms() && q->hasArgTerms());
    QVERIFY(EventQuery::parse("   ", &err)->empty());
    QCOMPARE(EventQuery::parse("dur<20us", &err)->terms()[0].number, 20e3);
    QCOMPARE(EventQuery::parse("dur<20µs", &err)->terms()[0].number, 20e3);
    QCOMPARE(EventQuery::parse("dur>2s", &err)->terms()[0].number, 2e9);
    QCOMPARE(EventQuery::parse("dur>300", &err)->terms()[0].number, 300.0);
    auto quoted = EventQuery::parse("name:\"all reduce\"", &err);
    QCOMPARE(quoted->terms().size(), size_t(1));
    QCOMPARE(quoted->terms()[0].text, std::string("all reduce"));
}

void TstEventQuery::errorsSayWhy()
{
    std::string err;
    QVERIFY(!EventQuery::parse("dur>1parsec", &err));
    QVERIFY2(err.find("not a duration") != std::string::npos, err.c_str());
    QVERIFY(!EventQuery::parse("rank:x", &err));
    QVERIFY2(err.find("not a number") != std::string::npos, err.c_str());
    QVERIFY(!EventQuery::parse("name:\"open", &err));
    QVERIFY2(err.find("quote") != std::string::npos, err.c_str());
    QVERIFY(!EventQuery::parse("/a(/", &err));
    QVERIFY2(err.find("invalid regex") != std::string::npos, err.c_str());
    QVERIFY(!EventQuery::parse("/abc", &err));
    QVERIFY(!EventQuery::parse("args.step>x", &err));
    QVERIFY(!EventQuery::parse("host>3", &err));
    // Not a field: a word of the name (Kineto's operator names).
    auto q = EventQuery::parse("aten::mm", &err);
    QVERIFY(q);
    QVERIFY(q->matchesName("aten::mm", ""));
    QVERIFY(!q->matchesName("aten::add", ""));
}

void TstEventQuery::argsScanner()
{
    const std::string j = R"({"a":"x}\"y","n":{"k":[1,{"z":2}],"lr":0.001},"step":12, "s":"t"})";
    QCOMPARE(EventQuery::argValue(j, "step").value(), std::string("12"));
    QCOMPARE(EventQuery::argValue(j, "a").value(), std::string("x}\"y"));
    QCOMPARE(EventQuery::argValue(j, "n.lr").value(), std::string("0.001"));
    QCOMPARE(EventQuery::argValue(j, "n.k").value(), std::string("[1,{\"z\":2}]"));
    QCOMPARE(EventQuery::argValue(j, "s").value(), std::string("t"));
    QVERIFY(!EventQuery::argValue(j, "missing"));
    QVERIFY(!EventQuery::argValue(j, "n.k.z")); // an array is not an object
    for (const char *bad : {"", "[1,2]", "{", "{\"a\"", "{\"a\":", "{\"a\":\"unclosed", "null",
                            "{\"a\" 1}", "{\"b\":1,", "{\"b\":[[[[", "}}}}"})
        QVERIFY2(!EventQuery::argValue(bad, "a"), bad);
    // Deep nesting is scanned, not recursed into.
    const std::string deep = "{\"x\":" + std::string(100000, '[') + std::string(100000, ']') +
                             ",\"a\":7}";
    QCOMPARE(EventQuery::argValue(deep, "a").value(), std::string("7"));
}

void TstEventQuery::argsTerms()
{
    std::string err;
    auto eq = EventQuery::parse("args.step=12", &err);
    QVERIFY(eq->matchesArgs(R"({"step":12})"));
    QVERIFY(eq->matchesArgs(R"({"step":12.0})"));
    QVERIFY(!eq->matchesArgs(R"({"step":120})"));
    QVERIFY(!eq->matchesArgs(""));
    auto gt = EventQuery::parse("args.step>10 args.phase:WA", &err);
    QVERIFY(gt->matchesArgs(R"({"step":11,"phase":"warm"})"));
    QVERIFY(!gt->matchesArgs(R"({"step":11,"phase":"cold"})"));
    QVERIFY(!gt->matchesArgs(R"({"step":"eleven","phase":"warm"})"));
    auto text = EventQuery::parse("args.mode=train", &err);
    QVERIFY(text->matchesArgs(R"({"mode":"train"})"));
    QVERIFY(!text->matchesArgs(R"({"mode":"eval"})"));
    auto has = EventQuery::parse("-args.file", &err);
    QVERIFY(has->matchesArgs(R"({"step":1})"));
    QVERIFY(!has->matchesArgs(R"({"file":"x"})"));
}

void TstEventQuery::namesAndTracks()
{
    std::string err;
    WorkerInfo w;
    w.rank = 3;
    w.restart = 1;
    w.host = "node-07";
    EventTrack t;
    t.tid = 4242;
    t.threadName = "dataloader";
    QVERIFY(EventQuery::parse("rank>=3 restart:1 host:NODE thread:loader", &err)->matchesTrack(w, t));
    QVERIFY(EventQuery::parse("thread:4242", &err)->matchesTrack(w, t));
    QVERIFY(!EventQuery::parse("rank:0-2", &err)->matchesTrack(w, t));
    QVERIFY(!EventQuery::parse("host=node", &err)->matchesTrack(w, t));
    QVERIFY(EventQuery::parse("-rank:0", &err)->matchesTrack(w, t));
    auto names = EventQuery::parse("cat:coll -name=allreduce_start", &err);
    QVERIFY(names->matchesName("allreduce", "collective"));
    QVERIFY(!names->matchesName("allreduce_start", "collective"));
    QVERIFY(!names->matchesName("allreduce", ""));
    auto dur = EventQuery::parse("dur>1ms", &err);
    QVERIFY(dur->matchesDuration(1'000'001));
    QVERIFY(!dur->matchesDuration(1'000'000));
    QVERIFY(!dur->matchesDuration(-1)); // open or instant: no duration
    QVERIFY(EventQuery::parse("-dur>1ms", &err)->matchesDuration(-1));
}

QTEST_MAIN(TstEventQuery)
#include "tst_eventquery.moc"
