// Clocks ▸ Align clocks on collectives, through the real MainWindow offscreen on logs written
// here: two workers with no sync samples whose clocks differ by 3 ms, both running the same 20
// all_reduces (each ends at the same true instant on both). Loaded, they are aligned on the
// all_reduces (the action checked); unchecking the action reloads the job as `--no-align` does
// (rank 1 back 3 ms off, the Clocks panel saying alignment is off) and keeps the view: the
// range, the clock mode, the collapsed worker, the name filter and the selected event; checking
// it again aligns them again. Align on collective… with a pattern turns alignment back on, and
// a job opened with align = false (`syncline open --no-align`) shows the action unchecked.
// Cost: ~2 s (four loads of two small logs).
#include "tests/timeline/testlogs.h"

#include "ui/clockpanel.h"
#include "ui/clocktablemodel.h"
#include "ui/findbar.h"
#include "ui/mainwindow.h"
#include "ui/timelineview.h"
#include "ui/zoomcontrol.h"

#include <QAction>
#include <QColor>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace syncline;
using namespace syncline::ui;

namespace {

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kAhead = 3 * kMs; // rank 1's clock runs this far ahead of rank 0's

// Rank r's log: 20 all_reduces ending at the same true instant on both ranks (rank 1's begin
// later: the waits differ), a compute span between them.
QString writeLog(const QTemporaryDir &dir, int rank)
{
    const int64_t off = rank == 1 ? kAhead : 0;
    std::string text = testlogs::header(rank, 0, rank ? "host-b" : "host-a", 1000,
                                        1700000000000000000LL, rank ? "boot-b" : "boot-a");
    for (int k = 0; k < 20; ++k) {
        const int64_t end = 100 * kMs + k * 50 * kMs;
        const int64_t begin = end - (1 + rank) * kMs;
        text += testlogs::begin(begin - 20 * kMs + off, 1, "compute") +
                testlogs::end(begin - 5 * kMs + off, 1, "compute");
        text += testlogs::begin(begin + off, 1, "all_reduce") +
                testlogs::end(end + off, 1, "all_reduce");
    }
    const QString path = dir.filePath(QStringLiteral("w.%1.log").arg(rank));
    testlogs::write(path.toStdString(), text);
    return path;
}

// The largest |corrected end of rank 1's k-th all_reduce − rank 0's|.
int64_t allReduceMiss(const Timeline &tl)
{
    const uint32_t id = tl.names.find("all_reduce");
    auto ends = [&](size_t w) {
        std::vector<int64_t> out;
        for (const EventTrack &t : tl.workers[w].tracks)
            for (size_t i = 0; i < t.count(); ++i)
                if (t.nameId[i] == id)
                    out.push_back(tl.toGlobal(w, t.localEnd[i], ClockMode::Corrected));
        std::sort(out.begin(), out.end());
        return out;
    };
    const std::vector<int64_t> e0 = ends(0), e1 = ends(1);
    if (e0.size() != 20 || e1.size() != 20)
        return -1;
    int64_t worst = 0;
    for (size_t k = 0; k < e0.size(); ++k)
        worst = std::max(worst, std::abs(e1[k] - e0[k]));
    return worst;
}

QAction *clocksAction(MainWindow &w, const QString &objectName)
{
    for (QAction *menu : w.menuBar()->actions())
        if (menu->menu() && menu->text().remove(QLatin1Char('&')) == QStringLiteral("Clocks"))
            for (QAction *a : menu->menu()->actions())
                if (a->objectName() == objectName)
                    return a;
    return nullptr;
}

QString clockNotes(MainWindow &w)
{
    QString all;
    for (const QLabel *l : w.clockPanel()->findChildren<QLabel *>())
        all += l->text();
    return all;
}

} // namespace

class TstClocksMenu : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("syncline-test"));
        QCoreApplication::setApplicationName(QStringLiteral("tst_clocksmenu"));
    }

    void alignmentOffAndOnKeepsTheView()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QStringList paths{writeLog(dir, 0), writeLog(dir, 1)};
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QAction *align = clocksAction(w, QStringLiteral("alignCollectivesAction"));
        QVERIFY(align);
        QVERIFY(align->isCheckable());
        QSignalSpy spy(&w, &MainWindow::loadFinished);
        w.openPaths(paths);
        QVERIFY(spy.wait(30000));
        QVERIFY(spy.first().at(0).toBool());
        TimelineView *view = w.view();
        {
            const Timeline &tl = view->scene()->timeline();
            QCOMPARE(tl.workers.size(), size_t(2));
            QCOMPARE(tl.workers[1].clock.method, sync::ClockMethod::Collectives);
            QVERIFY2(allReduceMiss(tl) >= 0 && allReduceMiss(tl) < 100'000,
                     std::to_string(allReduceMiss(tl)).c_str());
        }
        QVERIFY(align->isChecked());
        QVERIFY(w.alignsCollectives());
        QVERIFY(!clockNotes(w).contains(QStringLiteral("collective alignment off")));

        // The view set up by the user.
        TimelineScene *scene = view->scene();
        scene->setCollapsed(1, true);
        w.findBar()->nameFilterEdit()->setText(QStringLiteral("reduce"));
        w.setClockMode(ClockMode::Raw);
        const int64_t r0 = view->zoomControl()->traceStart() + 40 * kMs;
        view->zoomControl()->setRange(r0, r0 + 30 * kMs);
        view->selectEvent({0, 5}, false);
        const uint32_t selectedName = scene->model(0).nameId(5);
        auto viewKept = [&](const char *when) {
            TimelineScene *after = view->scene();
            QVERIFY2(after != scene, when); // a new load, not the old scene
            QCOMPARE(after->clockMode(), ClockMode::Raw);
            QCOMPARE(view->zoomControl()->rangeStart(), r0);
            QCOMPARE(view->zoomControl()->rangeEnd(), r0 + 30 * kMs);
            QVERIFY(after->isCollapsed(1));
            QVERIFY(!after->isCollapsed(0));
            QVERIFY(!after->nameVisible(after->timeline().names.find("compute")));
            QVERIFY(after->nameVisible(after->timeline().names.find("all_reduce")));
            QCOMPARE(after->selected(), (EventRef{0, 5}));
            QCOMPARE(after->model(0).nameId(5), selectedName);
            scene = after;
        };

        // Off: as --no-align.
        spy.clear();
        align->trigger();
        QVERIFY(spy.wait(30000));
        QVERIFY(spy.first().at(0).toBool());
        QVERIFY(!align->isChecked());
        QVERIFY(!w.alignsCollectives());
        viewKept("after turning alignment off");
        {
            const Timeline &tl = view->scene()->timeline();
            QVERIFY(tl.workers[1].clock.method != sync::ClockMethod::Collectives);
            QCOMPARE(allReduceMiss(tl), kAhead);
        }
        QVERIFY2(clockNotes(w).contains(QStringLiteral("collective alignment off")),
                 qPrintable(clockNotes(w)));

        // On again.
        spy.clear();
        align->trigger();
        QVERIFY(spy.wait(30000));
        QVERIFY(align->isChecked());
        QVERIFY(w.alignsCollectives());
        viewKept("after turning alignment on again");
        QCOMPARE(view->scene()->timeline().workers[1].clock.method,
                 sync::ClockMethod::Collectives);
        QVERIFY(allReduceMiss(view->scene()->timeline()) < 100'000);
        QVERIFY(!clockNotes(w).contains(QStringLiteral("collective alignment off")));

        // Off, then Align on collective… with a pattern: alignment is on again, on that pattern.
        spy.clear();
        align->trigger();
        QVERIFY(spy.wait(30000));
        QVERIFY(!align->isChecked());
        spy.clear();
        w.reloadAlignedOn(QStringLiteral("all_reduce"));
        QVERIFY(spy.wait(30000));
        QVERIFY(align->isChecked());
        QCOMPARE(w.alignOn(), QStringLiteral("all_reduce"));
        QCOMPARE(view->scene()->timeline().workers[1].clock.method,
                 sync::ClockMethod::Collectives);
        // Turning it off drops the pattern (the two contradict, as on the command line).
        spy.clear();
        align->trigger();
        QVERIFY(spy.wait(30000));
        QVERIFY(w.alignOn().isEmpty());
        QCOMPARE(allReduceMiss(view->scene()->timeline()), kAhead);
    }

    // `syncline open --no-align`: the job opens unaligned and the menu says so.
    void openedWithoutAlignment()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QStringList paths{writeLog(dir, 0), writeLog(dir, 1)};
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy spy(&w, &MainWindow::loadFinished);
        w.openPaths(paths, {}, true, false);
        QVERIFY(spy.wait(30000));
        QAction *align = clocksAction(w, QStringLiteral("alignCollectivesAction"));
        QVERIFY(align);
        QVERIFY(!align->isChecked());
        QCOMPARE(allReduceMiss(w.view()->scene()->timeline()), kAhead);
    }

    // `syncline open --ranks 1`: the window passes the selection to the loader (it never reads
    // a file itself); every load of that window, a reload included, has rank 1 only.
    void openedWithRanks()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        writeLog(dir, 0);
        writeLog(dir, 1);
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        RankSet ranks;
        QVERIFY(RankSet::parse("1", ranks, nullptr));
        w.setRanks(ranks);
        QSignalSpy spy(&w, &MainWindow::loadFinished);
        w.openPaths({dir.path()});
        QVERIFY(spy.wait(30000));
        const Timeline &tl = w.view()->scene()->timeline();
        QCOMPARE(tl.workers.size(), size_t(1));
        QCOMPARE(tl.workers[0].info.rank, 1);
        QVERIFY(std::any_of(tl.problems.begin(), tl.problems.end(), [](const LoadProblem &p) {
            return p.message.find("subset: ranks 1 ") != std::string::npos;
        }));
        spy.clear();
        w.reloadWithAlignment(false);
        QVERIFY(spy.wait(30000));
        QCOMPARE(w.view()->scene()->timeline().workers.size(), size_t(1));
        QCOMPARE(w.view()->scene()->timeline().workers[0].info.rank, 1);
    }

    // The Clocks panel's Wall column and headline show the loader's wall-clock check: exact wall
    // clocks agree (the headline suggests --clock wall); opened on the wall clocks
    // (`open --clock wall`) with host 2's wall clock 3 ms off, hosts 0-1 are used, host 2 is
    // outside its band (red), refused, and the headline and notes say so.
    void wallColumnShowsTheCheck()
    {
        QTemporaryDir exact, off;
        QVERIFY(exact.isValid() && off.isValid());
        testlogs::writeHostsJob(exact.path().toStdString(), {0, 0, 0}, {0, 30'000, 0});
        testlogs::writeHostsJob(off.path().toStdString(), {0, 0, 3'000'000}, {0, 30'000, 0});
        {
            MainWindow w;
            w.show();
            QSignalSpy spy(&w, &MainWindow::loadFinished);
            w.openPaths({exact.path()});
            QVERIFY(spy.wait(30000));
            const ClockTableModel *m = w.clockPanel()->model();
            QCOMPARE(m->rowCount(), 3);
            QCOMPARE(m->headerData(ClockTableModel::Wall, Qt::Horizontal, Qt::DisplayRole)
                         .toString(),
                     QStringLiteral("Wall"));
            for (int r = 0; r < 3; ++r) {
                const QString text = m->index(r, ClockTableModel::Wall).data().toString();
                QVERIFY2(text.contains(QStringLiteral(" in ±")) && !text.contains("used"),
                         qPrintable(text));
                QVERIFY(m->index(r, ClockTableModel::Wall)
                            .data(Qt::ToolTipRole)
                            .toString()
                            .contains(QStringLiteral("within its sync band")));
            }
            const QLabel *headline = w.clockPanel()->wallLabel();
            QVERIFY(headline->isVisible());
            QVERIFY2(headline->text().contains(QStringLiteral("every host's wall clock agrees")) &&
                         headline->text().contains(QStringLiteral("--clock wall")),
                     qPrintable(headline->text()));
        }
        MainWindow w;
        w.show();
        w.setClockChoice(ClockChoice::Wall);
        QSignalSpy spy(&w, &MainWindow::loadFinished);
        w.openPaths({off.path()});
        QVERIFY(spy.wait(30000));
        const ClockTableModel *m = w.clockPanel()->model();
        QCOMPARE(m->rowCount(), 3);
        for (int r = 0; r < 2; ++r)
            QVERIFY2(m->index(r, ClockTableModel::Wall).data().toString().endsWith("· used"),
                     qPrintable(m->index(r, ClockTableModel::Wall).data().toString()));
        const QModelIndex off2 = m->index(2, ClockTableModel::Wall);
        QVERIFY2(off2.data().toString().startsWith(QStringLiteral("+3.0")) &&
                     off2.data().toString().contains(QStringLiteral("outside ±")),
                 qPrintable(off2.data().toString()));
        QCOMPARE(off2.data(Qt::ForegroundRole).value<QColor>(), QColor(0xd93025));
        QVERIFY(m->index(0, ClockTableModel::Wall).data(Qt::ForegroundRole).isNull());
        const QString headline = w.clockPanel()->wallLabel()->text();
        QVERIFY2(headline.contains(QStringLiteral("2 placed by their wall clocks")) &&
                     headline.contains(QStringLiteral("--clock wall was refused for host-2")),
                 qPrintable(headline));
        QVERIFY(clockNotes(w).contains(
            QStringLiteral("--clock wall refused for host host-2 (rank 2)")));
    }
};

QTEST_MAIN(TstClocksMenu)
#include "tst_clocksmenu.moc"
