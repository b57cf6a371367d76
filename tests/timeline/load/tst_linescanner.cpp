// LineScanner: the bulk fast path of the log reader — accepted records, decoded fields, and
// the rejection reasons (with column) for invalid lines.
#include "timeline/load/log/linescanner.h"

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

QTEST_APPLESS_MAIN(TstLineScanner)
#include "tst_linescanner.moc"
