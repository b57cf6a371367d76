// LineScanner: the bulk fast path of the log reader — accepted records, decoded fields, and
// the rejection reasons (with column) for invalid lines.
#include "timeline/load/parse/log/linescanner.h"

#include <QtTest>

using namespace syncline;
using namespace syncline::load; // LineScanner is a loading-stage internal

class TstLineScanner : public QObject
{
    Q_OBJECT

private slots:
    void fields();
    void escapesAndKeyOrder();
    void rejects_data();
    void rejects();
    void bulkPathAgreesWithScan_data();
    void bulkPathAgreesWithScan();
    void bulkPathStopsAtTheLineEnd();
};

void TstLineScanner::fields()
{
    LineScanner s;
    LogRecord r;
    QVERIFY(s.scan(
        R"({"t":"X","ts":-5,"dur":5000,"tid":41236,"name":"cuda_kernel","args":{"a":[1,{"b":null}],"c":true}})",
        r));
    QCOMPARE(int(r.type), int(RecordType::Complete));
    QCOMPARE(r.ts, int64_t(-5));
    QCOMPARE(r.dur, int64_t(5000));
    QCOMPARE(r.tid, int64_t(41236));
    QCOMPARE(r.name, std::string_view("cuda_kernel"));
    QCOMPARE(r.args, std::string_view(R"({"a":[1,{"b":null}],"c":true})"));
    QVERIFY(s.scan(
        R"({"t":"sync","burst":7,"seq":2,"ref":"10.0.0.1:29400","t1":1,"t2":2,"t3":3,"t4":4})", r));
    QCOMPARE(int(r.type), int(RecordType::Sync));
    QCOMPARE(r.burst, int64_t(7));
    QCOMPARE(r.t4, int64_t(4));
    QCOMPARE(r.ref, std::string_view("10.0.0.1:29400"));
    QVERIFY(
        s.scan(R"({"t":"future","whatever":[1,2.5e3,"x"]})", r)); // unknown type: accepted, ignored
    QCOMPARE(int(r.type), int(RecordType::Unknown));
    QVERIFY(s.scan(R"({"t":"I","ts":9223372036854775807,"tid":1,"name":""})", r));
    QCOMPARE(r.ts, INT64_MAX);
}

void TstLineScanner::escapesAndKeyOrder()
{
    LineScanner s;
    LogRecord r;
    QVERIFY(s.scan("  { \"name\" : \"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\" , \"tid\":1,\"ts\":2, "
                   "\"t\" : \"B\" }  ",
                   r));
    QCOMPARE(int(r.type), int(RecordType::Begin));
    QCOMPARE(r.name, std::string_view("a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80"));
    QCOMPARE(r.ts, int64_t(2));
}

void TstLineScanner::rejects_data()
{
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<int>("column");
    QTest::newRow("empty object has no t") << R"({})"
                                           << "record has no \"t\" key" << 1;
    QTest::newRow("array") << R"([1])"
                           << "not a JSON object" << 1;
    QTest::newRow("unterminated string") << R"({"t":"B,"ts":1})"
                                         << "',' or '}' expected" << 10;
    QTest::newRow("torn") << R"({"t":"B","ts":12)"
                          << "',' or '}' expected" << 17;
    QTest::newRow("fraction ts") << R"({"t":"B","ts":1.5})"
                                 << "ts: expected an integer, got a fraction or exponent" << 15;
    QTest::newRow("string ts") << R"({"t":"B","ts":"1"})"
                               << "ts: expected an integer" << 15;
    QTest::newRow("overflow") << R"({"t":"B","ts":9223372036854775808})"
                              << "ts: integer out of range" << 15;
    QTest::newRow("trailing") << R"({"t":"B"} x)"
                              << "trailing characters after the object" << 11;
    QTest::newRow("bad escape") << R"({"t":"B","name":"a\q"})"
                                << "invalid escape" << 20;
    QTest::newRow("control char") << "{\"t\":\"B\",\"name\":\"a\x01\"}"
                                  << "control character in string" << 19;
    QTest::newRow("args not object") << R"({"t":"B","args":[1]})"
                                     << "args: expected an object" << 17;
    QTest::newRow("bad literal") << R"({"t":"B","x":tru})"
                                 << "invalid literal" << 14;
    QTest::newRow("leading zero") << R"({"t":"B","ts":012})"
                                  << "leading zero in number" << 15;
}

void TstLineScanner::rejects()
{
    QFETCH(QString, line);
    QFETCH(QString, reason);
    QFETCH(int, column);
    LineScanner s;
    LogRecord r;
    const std::string text = line.toStdString();
    QVERIFY(!s.scan(text, r));
    QCOMPARE(QString::fromStdString(s.error()), reason);
    QCOMPARE(int(s.errorColumn()), column);
}

// scanAt (the bulk path, straight from the read buffer) either declines a line or gives the
// record scan() gives the same line, for every field the record's type is read by.
void TstLineScanner::bulkPathAgreesWithScan_data()
{
    QTest::addColumn<QByteArray>("line");
    QTest::addColumn<bool>("bulk"); // taken by scanAt
    QTest::addColumn<bool>("ascii");
    auto row = [](const char *tag, const char *line, bool bulk, bool ascii = true) {
        QTest::newRow(tag) << QByteArray(line) << bulk << ascii;
    };
    row("B with args",
        R"({"t":"B","ts":1753686767508,"tid":40000,"name":"step","args":{"step":0}})", true);
    row("E", R"({"t":"E","ts":1753687267546,"tid":40001,"name":"load_batch"})", true);
    row("X", R"({"t":"X","ts":-5,"dur":5000,"tid":41236,"name":"cuda_kernel"})", true);
    row("I, flat args of every kind",
        R"({"t":"I","ts":7,"tid":1,"name":"mark","args":{"a":-0.5e+3,"b":"s","c":true,"d":null,"e":false,"f":0}})",
        true);
    row("msg send",
        R"({"t":"msg","ts":1753687800366,"tid":40000,"dir":"send","peer":1,"id":"grad-0-0"})", true,
        false);
    row("msg recv, negative peer", R"({"t":"msg","ts":5,"tid":2,"dir":"recv","peer":-1,"id":""})",
        true, false);
    row("non-ASCII name", "{\"t\":\"B\",\"ts\":1,\"tid\":2,\"name\":\"forw\xc3\xa4rd_step\"}", true,
        false);
    row("invalid UTF-8 in args",
        "{\"t\":\"B\",\"ts\":1,\"tid\":2,\"name\":\"forward\",\"args\":{\"k\":\"\xff\"}}", true,
        false);
    row("nested args", R"({"t":"B","ts":1,"tid":2,"name":"forward","args":{"a":{"b":1}}})", false);
    row("blank in args", R"({"t":"B","ts":1,"tid":2,"name":"forward","args":{ "a":1}})", false);
    row("escape in name", R"({"t":"B","ts":1,"tid":2,"name":"for\"ward_xx"})", false);
    row("escape in id", R"({"t":"msg","ts":1,"tid":2,"dir":"send","peer":1,"id":"a\u00e9"})",
        false);
    row("leading zero", R"({"t":"msg","ts":01,"tid":2,"dir":"send","peer":1,"id":"a"})", false);
    row("fraction in ts", R"({"t":"B","ts":1.5,"tid":2,"name":"forward_step"})", false);
    row("19 digits", R"({"t":"B","ts":1234567890123456789,"tid":2,"name":"forward"})", false);
    row("short line (generic path)", R"({"t":"I","ts":1,"tid":1,"name":""})", false);
    row("other key order", R"({"ts":1,"t":"B","tid":2,"name":"forward_step_x"})", false);
    row("sync", R"({"t":"sync","burst":0,"seq":0,"ref":"r","t1":1,"t2":2,"t3":3,"t4":4})", false);
    row("bad args number", R"({"t":"B","ts":1,"tid":2,"name":"forward","args":{"a":1.}})", false);
    row("bad args literal", R"({"t":"B","ts":1,"tid":2,"name":"forward","args":{"a":nul}})", false);
    row("carriage return", "{\"t\":\"E\",\"ts\":1753687267546,\"tid\":40001,\"name\":\"x\"}\r",
        false);
    row("trailing blank", R"({"t":"E","ts":1753687267546,"tid":40001,"name":"x"} )", false);
}

void TstLineScanner::bulkPathAgreesWithScan()
{
    QFETCH(QByteArray, line);
    QFETCH(bool, bulk);
    QFETCH(bool, ascii);
    const QByteArray buffer = line + "\n{\"t\":\"E\"";
    LineScanner fast, full;
    LogRecord a, b;
    const char *lineEnd = nullptr;
    const bool taken =
        fast.scanAt(buffer.constData(), buffer.constData() + buffer.size(), a, &lineEnd);
    QCOMPARE(taken, bulk);
    if (!taken)
        return;
    QCOMPARE(lineEnd, buffer.constData() + line.size());
    QCOMPARE(a.textAscii, ascii);
    QVERIFY(full.scan(std::string_view(line.constData(), size_t(line.size())), b));
    QCOMPARE(int(a.type), int(b.type));
    QCOMPARE(a.hasType, b.hasType);
    QCOMPARE(a.hasTs, b.hasTs);
    QCOMPARE(a.ts, b.ts);
    QCOMPARE(a.hasTid, b.hasTid);
    QCOMPARE(a.tid, b.tid);
    if (a.type == RecordType::Msg) {
        QCOMPARE(a.dir, b.dir);
        QCOMPARE(a.peer, b.peer);
        QCOMPARE(a.id, b.id);
        QCOMPARE(a.hasArgs, b.hasArgs);
        QCOMPARE(a.hasName, b.hasName);
        return;
    }
    QCOMPARE(a.hasName, b.hasName);
    QCOMPARE(a.name, b.name);
    QCOMPARE(a.hasDur, b.hasDur);
    QCOMPARE(a.dur, b.dur);
    QCOMPARE(a.hasArgs, b.hasArgs);
    QCOMPARE(a.args, b.args);
}

// A record cut by the end of the buffer, or followed by more than its '\n', is declined: the
// caller then finds the line's end itself (or waits for the rest of the line).
void TstLineScanner::bulkPathStopsAtTheLineEnd()
{
    const std::string line = R"({"t":"B","ts":1,"tid":2,"name":"forward","args":{"step":3}})";
    LineScanner s;
    LogRecord r;
    const char *lineEnd = nullptr;
    for (size_t cut = 0; cut <= line.size(); ++cut) {
        const std::string torn = line.substr(0, cut);
        QVERIFY(!s.scanAt(torn.data(), torn.data() + torn.size(), r, &lineEnd));
    }
    const std::string two = line + "\n" + line + "\n";
    QVERIFY(s.scanAt(two.data(), two.data() + two.size(), r, &lineEnd));
    QCOMPARE(size_t(lineEnd - two.data()), line.size());
    QVERIFY(s.scanAt(lineEnd + 1, two.data() + two.size(), r, &lineEnd));
    QCOMPARE(size_t(lineEnd - two.data()), 2 * line.size() + 1);
    QCOMPARE(r.args, std::string_view(R"({"step":3})"));
}

QTEST_APPLESS_MAIN(TstLineScanner)
#include "tst_linescanner.moc"
