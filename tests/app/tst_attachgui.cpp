// The viewer attached to a real running job (offscreen): LiveAttachment on a MainWindow while
// live_worker processes write — the Workers dock lists them with their states (a SIGSTOPped one
// turns silent), follow mode keeps the right edge at "now", a pan turns it off and End turns it
// back on, activating a worker selects its latest event.
#include "ui/linkpainter.h"
#include "ui/liveattachment.h"
#include "ui/livecontroller.h"
#include "ui/mainwindow.h"
#include "ui/timelineview.h"
#include "ui/workertablemodel.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QMenuBar>
#include <QProcess>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <fstream>

using namespace syncline;
using namespace syncline::ui;

namespace {

std::unique_ptr<QProcess> startWorker(const QString &dir, int rank, bool messages = false)
{
    auto p = std::make_unique<QProcess>();
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("RANK", QString::number(rank));
    env.insert("WORLD_SIZE", "2");
    p->setProcessEnvironment(env);
    p->setProcessChannelMode(QProcess::ForwardedChannels);
    p->start(QStringLiteral(SYNCLINE_BINARY_DIR "/tests/live_worker"),
             {"--config", dir + "/timer_config.json", "--log", dir + "/rank{rank}.log", "--step-ms",
              "5", "--messages", messages ? "1" : "0"});
    return p;
}

int rowOfRank(const WorkerTableModel &m, int rank)
{
    for (int r = 0; r < m.rowCount(); ++r)
        if (m.row(r).rank == rank)
            return r;
    return -1;
}

} // namespace

class TstAttachGui : public QObject
{
    Q_OBJECT

private slots:
    void followsARunningJob();
    void liveJobDrawsItsMessages();
    void missingDirectoryRefused();
};

void TstAttachGui::followsARunningJob()
{
    QTemporaryDir dir;
    const QString d = dir.path();
    std::ofstream((d + "/timer_config.json").toStdString())
        << "{\"log_path\":\"rank{rank}.log\",\"flush_interval_ms\":20,\"heartbeat_interval_ms\":"
           "100,"
           "\"silent_after_s\":1.0,\"sync\":{\"enabled\":false}}";
    auto w0 = startWorker(d, 0), w1 = startWorker(d, 1);
    QVERIFY(w0->waitForStarted() && w1->waitForStarted());
    auto cleanup = qScopeGuard([&] {
        for (auto *p : {w0.get(), w1.get()}) {
            ::kill(pid_t(p->processId()), SIGCONT);
            p->kill();
            p->waitForFinished(5000);
        }
    });

    MainWindow window;
    window.resize(1200, 700);
    window.show();
    LiveOptions o;
    o.path = d.toStdString();
    QString error;
    LiveAttachment *live = LiveAttachment::attach(&window, o, {}, &error);
    QVERIFY2(live, qPrintable(error));
    QAbstractItemModelTester tester(live->workerModel(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    const WorkerTableModel &model = *live->workerModel();
    QTRY_VERIFY_WITH_TIMEOUT(model.rowCount() == 2 && model.row(0).events > 20 &&
                                 model.row(1).events > 20 && live->refreshCount() > 1,
                             20000);
    QCOMPARE(model.row(0).state, WorkerState::Running);
    QVERIFY(window.timeline() == live->shown()); // the viewer shows the live Timeline itself
    QVERIFY(window.timeline() == live->controller()->timeline()); // no copy

    // Refreshes are incremental: the scene (and its models) stay, only new events are indexed.
    const TimelineScene *scene = window.view()->scene();
    const uint64_t indexed = scene->indexedEvents();
    const size_t eventsBefore = window.timeline()->eventCount();

    // Follow mode: the right edge is "now" of the snapshot on screen.
    ZoomControl *zoom = window.view()->zoomControl();
    QVERIFY(live->isFollowing());
    const int refreshes = live->refreshCount();
    QTRY_VERIFY_WITH_TIMEOUT(live->refreshCount() > refreshes + 1 &&
                                 window.timeline()->eventCount() > eventsBefore,
                             10000);
    QCOMPARE(window.view()->scene(), scene);
    QVERIFY(scene->indexedEvents() > indexed);
    QVERIFY2(scene->indexedEvents() - indexed <=
                 2 * (window.timeline()->eventCount() - eventsBefore),
             qPrintable(QStringLiteral("%1 events indexed for %2 new")
                            .arg(scene->indexedEvents() - indexed)
                            .arg(window.timeline()->eventCount() - eventsBefore)));
    QCOMPARE(zoom->rangeEnd(), std::min(live->shownNowNs(), zoom->traceEnd()));
    QVERIFY(zoom->rangeEnd() >= live->shown()->range(ClockMode::Corrected).end - 1);

    // Zooming or panning turns follow off; End brings it back with the width the user chose.
    zoom->zoomAt(4.0, zoom->rangeEnd());
    QVERIFY(!live->isFollowing());
    const int64_t width = zoom->rangeDuration();
    QTest::keyClick(window.view(), Qt::Key_End);
    QVERIFY(live->isFollowing());
    QCOMPARE(zoom->rangeDuration(), width);
    QCOMPARE(zoom->rangeEnd(), std::min(live->shownNowNs(), zoom->traceEnd()));
    zoom->pan(-width / 2);
    QVERIFY(!live->isFollowing());
    const int64_t heldStart = zoom->rangeStart();
    const int after = live->refreshCount();
    QTRY_VERIFY_WITH_TIMEOUT(live->refreshCount() > after, 10000);
    QCOMPARE(zoom->rangeStart(), heldStart); // refreshes keep the user's range
    QTest::keyClick(window.view(), Qt::Key_End);
    QVERIFY(live->isFollowing());
    QCOMPARE(zoom->rangeEnd(), std::min(live->shownNowNs(), zoom->traceEnd()));

    // A stopped worker turns silent in the Workers list.
    ::kill(pid_t(w1->processId()), SIGSTOP);
    QTRY_VERIFY_WITH_TIMEOUT(model.row(rowOfRank(model, 1)).state == WorkerState::Silent, 20000);
    QCOMPARE(model.row(rowOfRank(model, 0)).state, WorkerState::Running);
    // "Last record … ago" keeps counting while the worker is quiet (no file change to report).
    const double silent = model.row(rowOfRank(model, 1)).lastRecordS;
    QTRY_VERIFY_WITH_TIMEOUT(model.row(rowOfRank(model, 1)).lastRecordS > silent + 1.0, 10000);
    // Its record count is the recorder's: the event records (B, E, X, i) in its frozen log.
    auto recordLines = [](const QString &path) {
        std::ifstream in(path.toStdString());
        qulonglong n = 0;
        for (std::string line; std::getline(in, line);)
            for (const char *t : {"{\"t\":\"B\"", "{\"t\":\"E\"", "{\"t\":\"X\"", "{\"t\":\"I\""})
                n += line.rfind(t, 0) == 0;
        return n;
    };
    QTRY_COMPARE_WITH_TIMEOUT(model.row(rowOfRank(model, 1)).events, recordLines(d + "/rank1.log"),
                              10000);
    // The dock has its View-menu entry, and the State column is on screen at the default width.
    bool inMenu = false;
    for (QAction *a : window.menuBar()->actions())
        if (a->menu())
            for (QAction *b : a->menu()->actions())
                inMenu |= b->text() == QStringLiteral("Workers");
    QVERIFY(inMenu);
    QTableView *table = live->table();
    const int stateRight =
        table->horizontalHeader()->sectionViewportPosition(WorkerTableModel::State) +
        table->columnWidth(WorkerTableModel::State);
    QVERIFY2(stateRight <= table->viewport()->width(),
             qPrintable(QStringLiteral("State ends at %1 of %2 px")
                            .arg(stateRight)
                            .arg(table->viewport()->width())));
    QVERIFY(
        table->columnWidth(WorkerTableModel::State) >=
        table->fontMetrics().horizontalAdvance(WorkerTableModel::stateText(WorkerState::Silent)));

    // Activating a worker selects its latest event and stops following.
    live->jumpToWorker(rowOfRank(model, 1));
    const EventRef sel = window.view()->scene()->selected();
    QVERIFY(sel.valid());
    const TrackModel &tm = window.view()->scene()->model(sel.model);
    QCOMPARE(window.timeline()->workers[tm.worker()].info.rank, 1);
    QCOMPARE(sel.index, tm.count() - 1);
    QVERIFY(!live->isFollowing());
}

// Two real workers exchanging messages (rank r sends to r + 1 each step) while the viewer is
// attached: the links appear and keep growing as the files do, each from a rank to the next one
// (on the "trainer" thread), with the receive ~a step's fraction after the send; arrows are drawn.
void TstAttachGui::liveJobDrawsItsMessages()
{
    QTemporaryDir dir;
    const QString d = dir.path();
    std::ofstream((d + "/timer_config.json").toStdString())
        << "{\"log_path\":\"rank{rank}.log\",\"flush_interval_ms\":20,\"heartbeat_interval_ms\":"
           "100,\"sync\":{\"enabled\":false}}";
    auto w0 = startWorker(d, 0, true), w1 = startWorker(d, 1, true);
    QVERIFY(w0->waitForStarted() && w1->waitForStarted());
    auto cleanup = qScopeGuard([&] {
        for (auto *p : {w0.get(), w1.get()}) {
            p->kill();
            p->waitForFinished(5000);
        }
    });
    MainWindow window;
    window.resize(1200, 700);
    window.show();
    LiveOptions o;
    o.path = d.toStdString();
    o.clockRefreshMs = 200;
    QString error;
    LiveAttachment *live = LiveAttachment::attach(&window, o, {}, &error);
    QVERIFY2(live, qPrintable(error));
    QTRY_VERIFY_WITH_TIMEOUT(window.timeline() && window.view()->scene() &&
                                 window.timeline()->workers.size() == 2 &&
                                 window.view()->scene()->linkIndex().size() > 20,
                             20000);
    const size_t first = window.view()->scene()->linkIndex().size();
    QTRY_VERIFY_WITH_TIMEOUT(window.view()->scene()->linkIndex().size() > first + 20, 20000);
    const Timeline &tl = *window.timeline();
    const LinkIndex &idx = window.view()->scene()->linkIndex();
    QCOMPARE(idx.size(), tl.links.size()); // the scene indexes the live Timeline's own links
    for (size_t k = 0; k < idx.size(); ++k) {
        const MessageLink l = idx.link(k);
        QCOMPARE(tl.workers[l.toWorker].info.rank, (tl.workers[l.fromWorker].info.rank + 1) % 2);
        QCOMPARE(tl.workers[l.fromWorker].tracks[l.fromTrack].threadName, std::string("trainer"));
        QCOMPARE(tl.workers[l.toWorker].tracks[l.toTrack].threadName, std::string("trainer"));
    }
    // Drawn: the whole job on screen shows arrows.
    TimelineScene *scene = window.view()->scene();
    const LinkGeometry g =
        LinkPainter::compute(*scene, {scene->beginNs(), scene->endNs(), 1000, 0, 2000});
    QVERIFY(!g.arrows.empty());
    QVERIFY(g.linksShown > 0);
}

void TstAttachGui::missingDirectoryRefused()
{
    MainWindow window;
    LiveOptions o;
    o.path = "/nonexistent/syncline/job";
    QString error;
    QVERIFY(!LiveAttachment::attach(&window, o, {}, &error));
    QVERIFY2(error.contains("no such file or directory"), qPrintable(error));
}

QTEST_MAIN(TstAttachGui)
#include "tst_attachgui.moc"
