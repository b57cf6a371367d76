// The find language through the real find bar (docs/viewer.md "Find and filters"): each field
// (name, rank, host, restart, thread, cat, dur, args, /regex/, negation) selects exactly the
// events a brute-force filter written here over the model selects, the counter says so, and
// Enter / Shift+Enter step through the matches in time order with an "i / N" index.
#include "testjob.h"
#include "ui/findbar.h"
#include "ui/mainwindow.h"
#include "ui/timelineview.h"

#include <QLineEdit>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

#include <functional>

using namespace syncline;
using namespace syncline::ui;

class TstFindQuery : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void eachFieldAgainstBruteForce_data();
    void eachFieldAgainstBruteForce();
    void stepsInTimeOrderWithIndex();
    void badQueryIsExplained();

private:
    std::shared_ptr<Timeline> m_job;
};

// Four workers (ranks 0–3; host-a for 0–1, host-b for 2–3; restart = rank % 2), each a "main"
// thread of 30 roots cycling step / forward / backward / all_reduce (durations 0.2–2.2 ms,
// args {"step":k} on even k, {"step":k,"phase":"warm"} when k % 5 == 0) and a "loader" thread
// of 6 "load" events with {"file":"a/b.bin"}; rank 3's last event is open, one instant each.
static std::shared_ptr<Timeline> makeJob()
{
    auto t = std::make_shared<Timeline>();
    const char *names[] = {"step", "forward", "backward", "all_reduce"};
    for (int r = 0; r < 4; ++r) {
        Worker w = testjob::makeWorker(r, r < 2 ? "host-a" : "host-b");
        w.info.restart = r % 2;
        w.info.sourceFile = "w" + std::to_string(r) + ".log";
        EventTrack main;
        main.tid = 10 + r;
        main.threadName = "main";
        int64_t t0 = 1000 + r * 50;
        for (int k = 0; k < 30; ++k) {
            const int64_t d = int64_t((k * 37 + r) % 11 + 1) * 200'000;
            const uint16_t flags = (r == 3 && k == 29) ? EventOpen : 0;
            testjob::addEvent(*t, main, names[k % 4], t0, t0 + d, -1, flags);
            if (k % 2 == 0) {
                const std::string args = k % 5 == 0 ? "{\"step\":" + std::to_string(k) +
                                                          ",\"phase\":\"warm\"}"
                                                    : "{\"step\":" + std::to_string(k) + "}";
                main.argRefs.emplace_back(uint32_t(main.count() - 1), t->args.intern(args));
                main.flags.back() |= EventHasArgs;
            }
            t0 += d + 10'000;
        }
        testjob::addEvent(*t, main, "mark", t0 + 5, t0 + 5, -1, EventInstant);
        EventTrack loader;
        loader.tid = 20 + r;
        loader.threadName = "loader";
        for (int k = 0; k < 6; ++k) {
            testjob::addEvent(*t, loader, "load", 2000 + k * 3'000'000,
                              2000 + k * 3'000'000 + 500'000 * (k + 1), -1, EventHasArgs);
            loader.argRefs.emplace_back(uint32_t(k), t->args.intern("{\"file\":\"a/b.bin\"}"));
        }
        w.tracks.push_back(std::move(main));
        w.tracks.push_back(std::move(loader));
        t->workers.push_back(std::move(w));
    }
    t->kinds.resize(t->names.size());
    t->kinds[t->names.find("all_reduce")].category = "collective";
    t->updateRange();
    return t;
}

void TstFindQuery::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("syncline-test"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_findquery"));
    QSettings().clear();
    m_job = makeJob();
}

using Pred = std::function<bool(const Timeline &, const Worker &, const EventTrack &, size_t)>;
Q_DECLARE_METATYPE(Pred)

static std::string nameOf(const Timeline &t, const EventTrack &tr, size_t i)
{
    return std::string(t.names.name(tr.nameId[i]));
}
static bool complete(const EventTrack &tr, size_t i)
{
    return !(tr.flags[i] & (EventOpen | EventInstant));
}
static int64_t dur(const EventTrack &tr, size_t i) // corrected = raw = identity here
{
    return tr.localEnd[i] - tr.localStart[i];
}
static std::string args(const Timeline &t, const EventTrack &tr, size_t i)
{
    const int64_t id = tr.argsId(uint32_t(i));
    return id < 0 ? std::string() : std::string(t.args.text(uint32_t(id)));
}

void TstFindQuery::eachFieldAgainstBruteForce_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<Pred>("brute");
    QTest::newRow("word") << "WARD" << Pred([](auto &t, auto &, auto &tr, size_t i) {
        return nameOf(t, tr, i).find("ward") != std::string::npos;
    });
    QTest::newRow("name=") << "name=step" << Pred([](auto &t, auto &, auto &tr, size_t i) {
        return nameOf(t, tr, i) == "step";
    });
    QTest::newRow("regex") << "/^(for|back)ward$/" << Pred([](auto &t, auto &, auto &tr, size_t i) {
        const std::string n = nameOf(t, tr, i);
        return n == "forward" || n == "backward";
    });
    QTest::newRow("rank:") << "rank:2"
                           << Pred([](auto &, auto &w, auto &, size_t) { return w.info.rank == 2; });
    QTest::newRow("rank range") << "rank:1-2" << Pred([](auto &, auto &w, auto &, size_t) {
        return w.info.rank >= 1 && w.info.rank <= 2;
    });
    QTest::newRow("rank>") << "rank>1"
                           << Pred([](auto &, auto &w, auto &, size_t) { return w.info.rank > 1; });
    QTest::newRow("host") << "host:B" << Pred([](auto &, auto &w, auto &, size_t) {
        return w.info.host == "host-b";
    });
    QTest::newRow("restart") << "restart:1" << Pred([](auto &, auto &w, auto &, size_t) {
        return w.info.restart == 1;
    });
    QTest::newRow("thread") << "thread:load" << Pred([](auto &, auto &, auto &tr, size_t) {
        return tr.threadName == "loader";
    });
    QTest::newRow("tid") << "thread:12" << Pred([](auto &, auto &, auto &tr, size_t) {
        return tr.tid == 12;
    });
    QTest::newRow("cat") << "cat:collective" << Pred([](auto &t, auto &, auto &tr, size_t i) {
        return nameOf(t, tr, i) == "all_reduce";
    });
    QTest::newRow("dur>") << "dur>1ms" << Pred([](auto &, auto &, auto &tr, size_t i) {
        return complete(tr, i) && dur(tr, i) > 1'000'000;
    });
    QTest::newRow("dur<=us") << "dur<=400us" << Pred([](auto &, auto &, auto &tr, size_t i) {
        return complete(tr, i) && dur(tr, i) <= 400'000;
    });
    QTest::newRow("args=") << "args.step=12" << Pred([](auto &t, auto &, auto &tr, size_t i) {
        return args(t, tr, i) == "{\"step\":12}";
    });
    QTest::newRow("args>") << "args.step>=20" << Pred([](auto &t, auto &, auto &tr, size_t i) {
        const std::string a = args(t, tr, i);
        return a.rfind("{\"step\":", 0) == 0 && std::stoi(a.substr(8)) >= 20;
    });
    QTest::newRow("args text") << "args.phase:WARM" << Pred([](auto &t, auto &, auto &tr, size_t i) {
        return args(t, tr, i).find("\"phase\":\"warm\"") != std::string::npos;
    });
    QTest::newRow("args has") << "args.file" << Pred([](auto &t, auto &, auto &tr, size_t i) {
        return args(t, tr, i).find("\"file\"") != std::string::npos;
    });
    QTest::newRow("combined") << "forward rank:0-1 dur>=400us -host:host-b"
                              << Pred([](auto &t, auto &w, auto &tr, size_t i) {
                                     return nameOf(t, tr, i).find("forward") != std::string::npos &&
                                            w.info.rank <= 1 && complete(tr, i) &&
                                            dur(tr, i) >= 400'000 && w.info.host != "host-b";
                                 });
    QTest::newRow("quoted negation") << "-\"step\" -load" << Pred([](auto &t, auto &, auto &tr,
                                                                      size_t i) {
        const std::string n = nameOf(t, tr, i);
        return n.find("step") == std::string::npos && n.find("load") == std::string::npos;
    });
}

void TstFindQuery::eachFieldAgainstBruteForce()
{
    QFETCH(QString, query);
    QFETCH(Pred, brute);
    MainWindow w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(std::make_shared<Timeline>(*m_job), {QStringLiteral("query")});
    const TimelineScene *scene = w.view()->scene();
    w.findBar()->findEdit()->setText(query);
    QVERIFY2(scene->searchError().isEmpty(), qPrintable(scene->searchError()));
    int64_t expected = 0;
    for (int m = 0; m < int(scene->models().size()); ++m) {
        const TrackModel &tm = scene->model(m);
        for (int i = 0; i < tm.count(); ++i) {
            const bool want = brute(scene->timeline(), tm.workerData(), tm.track(), size_t(i));
            expected += want;
            QVERIFY2(scene->eventMatches(m, i) == want,
                     qPrintable(QStringLiteral("%1: model %2 event %3 (%4)")
                                    .arg(query)
                                    .arg(m)
                                    .arg(i)
                                    .arg(scene->displayName(tm.nameId(i)))));
        }
    }
    QVERIFY2(expected > 0, qPrintable(query)); // every query here selects something
    QCOMPARE(scene->matchingEventCount(), expected);
    QVERIFY2(w.findBar()->statusText().startsWith(QStringLiteral("%L1 event").arg(expected)),
             qPrintable(w.findBar()->statusText()));
}

void TstFindQuery::stepsInTimeOrderWithIndex()
{
    MainWindow w;
    w.resize(1200, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setTimeline(std::make_shared<Timeline>(*m_job), {QStringLiteral("query")});
    const TimelineScene *scene = w.view()->scene();
    QLineEdit *find = w.findBar()->findEdit();
    find->setText(QStringLiteral("backward dur>1ms"));
    const int64_t n = scene->matchingEventCount();
    QVERIFY(n > 3);
    int64_t last = std::numeric_limits<int64_t>::min();
    for (int k = 1; k <= int(n); ++k) {
        QTest::keyClick(find, Qt::Key_Return);
        const EventRef sel = scene->selected();
        QVERIFY(scene->eventMatches(sel.model, sel.index));
        const int64_t t = scene->model(sel.model).startTime(sel.index, scene->clockMode());
        QVERIFY(t >= last);
        last = t;
        QVERIFY2(w.findBar()->statusText().startsWith(QStringLiteral("%1 / %2 events").arg(k).arg(n)),
                 qPrintable(w.findBar()->statusText()));
    }
    QTest::keyClick(find, Qt::Key_Return, Qt::ShiftModifier);
    QVERIFY2(w.findBar()->statusText().startsWith(QStringLiteral("%1 / %2").arg(n - 1).arg(n)),
             qPrintable(w.findBar()->statusText()));
}

void TstFindQuery::badQueryIsExplained()
{
    MainWindow w;
    w.show();
    w.setTimeline(std::make_shared<Timeline>(*m_job), {QStringLiteral("query")});
    w.findBar()->findEdit()->setText(QStringLiteral("dur>3parsecs"));
    QVERIFY2(w.findBar()->statusText().contains(QStringLiteral("not a duration")),
             qPrintable(w.findBar()->statusText()));
    QVERIFY(!w.view()->scene()->searchActive());
    w.findBar()->findEdit()->setText(QStringLiteral("rank:x"));
    QVERIFY(w.findBar()->statusText().contains(QStringLiteral("not a number")));
    // Kineto's "aten::mm" is a name, not a field.
    w.findBar()->findEdit()->setText(QStringLiteral("aten::mm"));
    QVERIFY(w.view()->scene()->searchError().isEmpty());
    QCOMPARE(w.view()->scene()->matchingEventCount(), 0);
}

QTEST_MAIN(TstFindQuery)
#include "tst_findquery.moc"
