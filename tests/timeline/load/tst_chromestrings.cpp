// Keys and string values of a Chrome trace are read as JSON defines them whether or not they hold
// escapes: the parser takes a key or a string's own bytes when it has no backslash and unescapes
// it otherwise, so `"n\u0061me"` is the key name, `"a\"b"` the name a"b, and a name that is no
// string is refused as before. Cost: milliseconds.
#include "tests/timeline/testlogs.h"

#include "timeline/load/parse/chrome/chrometraceparser.h"

#include <QTemporaryDir>
#include <QtTest>

#include <set>
#include <string>

using namespace syncline;
using namespace syncline::load;

namespace {

std::set<std::string> names(const ParsedFile &f)
{
    std::set<std::string> out;
    for (const EventTrack &t : f.worker.tracks)
        for (uint32_t id : t.nameId)
            out.insert(std::string(f.names.name(id)));
    return out;
}

ParsedFile parse(const QTemporaryDir &dir, const std::string &events)
{
    const std::string path = dir.path().toStdString() + "/t.json";
    testlogs::write(path, "{\"traceEvents\":[" + events + "]}");
    return ChromeTraceParser::parseFile(path);
}

// Keys and values spelled with escapes (\u0061 is a, \u0058 is X, \ud83d\ude00 one emoji),
// extra blanks around the colons, empty strings and raw UTF-8.
const std::string kEscapes =
    "{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,\"name\":\"plain\"},"
    "{\"ph\":\"X\",\"ts\":3,\"dur\":1,\"pid\":1,\"tid\":1,\"n\\u0061me\":\"by escaped key\"},"
    "{\"\\u0070h\":\"\\u0058\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":1,\"name\":\"a\\\"b\"},"
    "{\"ph\":\"X\",\"ts\":7,\"dur\":1,\"pid\":1,\"tid\":1,"
    "\"name\":\"tab\\there\\\\ \\u00e9 \\ud83d\\ude00\"},"
    "{\"ph\":\"X\" ,  \"ts\":9,\"dur\":1,\"pid\":1,\"tid\":1,\"name\" : \"spaced\" , \"cat\" : \"c\\u0061t\"},"
    "{\"ph\":\"X\",\"ts\":11,\"dur\":1,\"pid\":1,\"tid\":1,\"name\":\"\",\"cat\":\"\"},"
    "{\"ph\":\"X\",\"ts\":13,\"dur\":1,\"pid\":1,\"tid\":1,\"name\":\"\xc3\xa9 \xe5\x90\x8d\xe5\x89\x8d\"}";

const std::string kNumberName = "{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,\"name\":5}";

} // namespace

class TstChromeStrings : public QObject
{
    Q_OBJECT
private slots:
    void escapedAndPlainKeysAndValues()
    {
        QTemporaryDir dir;
        const ParsedFile f = parse(dir, kEscapes);
        QVERIFY(f.usable);
        const std::set<std::string> want = {"plain", "by escaped key", "a\"b",
                                            "tab\there\\ \xc3\xa9 \xf0\x9f\x98\x80", "spaced", "",
                                            "\xc3\xa9 \xe5\x90\x8d\xe5\x89\x8d"};
        QCOMPARE(names(f), want);
        size_t n = 0;
        for (const EventTrack &t : f.worker.tracks)
            n += t.count();
        QCOMPARE(n, size_t(7));
    }

    void aNameThatIsNoStringIsRefused()
    {
        QTemporaryDir dir;
        const ParsedFile f = parse(dir, kNumberName);
        QVERIFY(!f.usable);
        QVERIFY(!f.problems.empty());
    }
};

QTEST_APPLESS_MAIN(TstChromeStrings)
#include "tst_chromestrings.moc"
