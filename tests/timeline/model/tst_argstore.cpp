// ArgStore: interned args texts — exact round trip of every JSON value kind the logs carry,
// one id per distinct text, merge remapping, stable views, and copies.
#include "timeline/model/argstore.h"

#include <QtTest>

#include <string>

using syncline::ArgStore;

class TstArgStore : public QObject
{
    Q_OBJECT

private slots:
    void roundTrip_data()
    {
        QTest::addColumn<QString>("text");
        QTest::newRow("small int") << QStringLiteral("{\"step\":12}");
        QTest::newRow("negative, big int")
            << QStringLiteral("{\"a\":-9223372036854775808,\"b\":18446744073709551615}");
        QTest::newRow("floats as written")
            << QStringLiteral("{\"loss\":0.50,\"lr\":1e-4,\"x\":-0.0,\"y\":1.5E+300}");
        QTest::newRow("strings, escapes")
            << QStringLiteral("{\"s\":\"a \\\"q\\\" \\\\ \\n \\u00e9 \\ud83d\\ude00\",\"e\":\"\"}");
        QTest::newRow("utf-8") << QStringLiteral("{\"name\":\"学習ステップ\"}");
        QTest::newRow("bools, null") << QStringLiteral("{\"t\":true,\"f\":false,\"n\":null}");
        QTest::newRow("nested") << QStringLiteral(
            "{\"a\":[1,{\"b\":null},[[]],{}],\"c\":{\"d\":{\"e\":[true]}}}");
        QTest::newRow("blanks kept") << QStringLiteral("{ \"step\" : 3 ,\t\"k\": [ 1 , 2 ] }");
        QTest::newRow("empty") << QString();
    }
    void roundTrip()
    {
        QFETCH(QString, text);
        const std::string s = text.toStdString();
        ArgStore store;
        store.intern("{\"other\":1}");
        const uint32_t id = store.intern(s);
        QCOMPARE(store.text(id), std::string_view(s));
        QCOMPARE(store[id], s);
        QCOMPARE(store.find(s), id);
        QCOMPARE(store.intern(s), id); // the same text again: the same id
    }

    void distinctTextsDistinctIds()
    {
        ArgStore store;
        // Texts that differ only in spacing, number spelling or key order stay distinct: the
        // store keeps what the log wrote.
        const uint32_t a = store.intern("{\"step\":1}");
        const uint32_t b = store.intern("{\"step\": 1}");
        const uint32_t c = store.intern("{\"step\":1.0}");
        const uint32_t d = store.intern("{\"step\":1}");
        QCOMPARE(store.size(), size_t(3));
        QCOMPARE(d, a);
        QVERIFY(a != b && b != c && a != c);
        QCOMPARE(a, 0u); // dense ids in first-seen order
        QCOMPARE(c, 2u);
        QCOMPARE(store.find("{\"step\":2}"), UINT32_MAX);
    }

    void manyTextsStayValid()
    {
        // 200k distinct texts (the index grows and rehashes; the arena takes many chunks): the
        // first view must still point at its bytes, and every id must find its text.
        ArgStore store;
        const uint32_t first = store.intern("{\"step\":0,\"tag\":\"first\"}");
        const std::string_view firstView = store.text(first);
        for (int i = 0; i < 200000; ++i)
            QCOMPARE(store.intern("{\"step\":" + std::to_string(i) + "}"), uint32_t(i + 1));
        QCOMPARE(firstView, std::string_view("{\"step\":0,\"tag\":\"first\"}"));
        QCOMPARE(store.size(), size_t(200001));
        for (int i = 0; i < 200000; i += 997)
            QCOMPARE(store.find("{\"step\":" + std::to_string(i) + "}"), uint32_t(i + 1));
        // A text longer than a chunk gets one of its own.
        const std::string big = "{\"blob\":\"" + std::string(300000, 'x') + "\"}";
        const uint32_t id = store.intern(big);
        QCOMPARE(store[id], big);
        QCOMPARE(firstView, std::string_view("{\"step\":0,\"tag\":\"first\"}"));
        QVERIFY(store.bytes() > big.size());
    }

    void mergeRemaps()
    {
        ArgStore a, b;
        a.intern("{\"step\":1}");
        a.intern("{\"step\":2}");
        b.intern("{\"step\":2}");
        b.intern("{\"x\":\"y\"}");
        b.intern("{\"step\":1}");
        const std::vector<uint32_t> remap = a.merge(b);
        QCOMPARE(remap, (std::vector<uint32_t>{1, 2, 0}));
        QCOMPARE(a.size(), size_t(3));
        for (uint32_t i = 0; i < b.size(); ++i)
            QCOMPARE(a.text(remap[i]), b.text(i));
    }

    void copyAndMove()
    {
        ArgStore a;
        a.intern("{\"k\":[1,2]}");
        a.intern("{\"k\":\"v\"}");
        ArgStore b(a);
        QCOMPARE(b.size(), size_t(2));
        QCOMPARE(b[1], std::string("{\"k\":\"v\"}"));
        QVERIFY(b.text(1).data() != a.text(1).data()); // its own bytes
        ArgStore c(std::move(a));
        QCOMPARE(c[0], std::string("{\"k\":[1,2]}"));
        QCOMPARE(c.find("{\"k\":\"v\"}"), 1u);
        c = b;
        QCOMPARE(c.size(), size_t(2));
    }
};

QTEST_APPLESS_MAIN(TstArgStore)
#include "tst_argstore.moc"
