// File ▸ Open window… through the real widgets (offscreen): the menu action opens the dialog,
// which shows the job's span once a full load has indexed it; OK loads only the window through
// LoadController/JobLoader, and the status line says so. Real log files written here.
#include "ui/mainwindow.h"
#include "ui/openwindowdialog.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <fstream>
#include <string>

using namespace syncline;
using namespace syncline::ui;

namespace {

// Two workers, 2 s: an epoch span over the whole run, 10 ms steps with a forward inside, and
// sync samples every 100 ms (worker 1's clock 7 ms ahead).
void writeJob(const QString &dir)
{
    for (int w = 0; w < 2; ++w) {
        std::ofstream out((dir + "/timer_events." + QString::number(w) + ".log").toStdString());
        const int64_t off = w * 7'000'000, t0 = 1'000'000'000;
        out << "{\"t\":\"header\",\"format\":\"syncline\",\"version\":1,\"rank\":" << w
            << ",\"local_rank\":0,\"world_size\":2,\"group_rank\":0,\"role\":\"trainer\","
               "\"restart\":0,\"run_id\":\"j\",\"host\":\"h"
            << w << "\",\"boot_id\":\"b" << w << "\",\"pid\":" << 10 + w
            << ",\"clock\":\"monotonic_raw\",\"anchor\":{\"mono_ns\":" << t0 + off
            << ",\"wall_ns\":1700000000000000000,\"spread_ns\":10},\"config\":null,\"start_ns\":"
            << t0 + off << "}\n";
        out << "{\"t\":\"B\",\"ts\":" << t0 + off << ",\"tid\":1,\"name\":\"epoch\"}\n";
        for (int64_t t = t0; t < t0 + 2'000'000'000; t += 10'000'000) {
            if ((t - t0) % 100'000'000 == 0)
                out << "{\"t\":\"sync\",\"burst\":" << (t - t0) / 100'000'000
                    << ",\"seq\":0,\"ref\":\"ts\",\"t1\":" << t + off << ",\"t2\":" << t + 10'000
                    << ",\"t3\":" << t + 12'000 << ",\"t4\":" << t + off + 22'000 << "}\n";
            out << "{\"t\":\"B\",\"ts\":" << t + off + 100'000
                << ",\"tid\":1,\"name\":\"step\",\"args\":{\"step\":" << (t - t0) / 10'000'000
                << "}}\n";
            out << "{\"t\":\"X\",\"ts\":" << t + off + 200'000
                << ",\"dur\":5000000,\"tid\":1,\"name\":\"forward\"}\n";
            out << "{\"t\":\"E\",\"ts\":" << t + off + 9'000'000
                << ",\"tid\":1,\"name\":\"step\"}\n";
        }
        out << "{\"t\":\"E\",\"ts\":" << t0 + off + 2'000'000'000
            << ",\"tid\":1,\"name\":\"epoch\"}\n";
    }
}

QAction *findAction(QMenuBar *bar, const QString &text)
{
    for (QAction *menu : bar->actions())
        if (menu->menu())
            for (QAction *a : menu->menu()->actions())
                if (a->text() == text)
                    return a;
    return nullptr;
}

} // namespace

class TstOpenWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        qputenv("XDG_CACHE_HOME", m_cache.path().toLocal8Bit());
    }

    void openWindowThroughTheDialog()
    {
        QTemporaryDir dir;
        writeJob(dir.path());
        MainWindow w;
        w.resize(1200, 800);
        w.show();
        QSignalSpy spy(&w, &MainWindow::loadFinished);
        QVERIFY(spy.isValid());
        // The whole job first: that load writes the index.
        w.openPaths({dir.path()});
        QVERIFY(spy.wait(30000));
        QVERIFY(w.timeline());
        const size_t all = w.timeline()->eventCount();
        QCOMPARE(all, size_t(2 * (1 + 200 * 2)));
        QVERIFY(!w.timeline()->window.active);

        QAction *open = findAction(w.menuBar(), QStringLiteral("Open &window…"));
        QVERIFY(open);
        bool sawSpan = false;
        QString spanText;
        QTimer::singleShot(0, this, [&] {
            auto *dialog = qobject_cast<OpenWindowDialog *>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            // Opened on the current job: the index is there, so the span is shown.
            QCOMPARE(dialog->path(), dir.path());
            spanText = dialog->spanLabel()->text();
            sawSpan = spanText.contains(QStringLiteral("indexed"));
            auto *begin = dialog->findChild<QDoubleSpinBox *>(QStringLiteral("windowBegin"));
            auto *end = dialog->findChild<QDoubleSpinBox *>(QStringLiteral("windowEnd"));
            QVERIFY(begin && end);
            begin->selectAll();
            QTest::keyClicks(begin, QStringLiteral("0.5"));
            end->selectAll();
            QTest::keyClicks(end, QStringLiteral("0.8"));
            auto *buttons = dialog->findChild<QDialogButtonBox *>();
            QVERIFY(buttons);
            QTest::mouseClick(buttons->button(QDialogButtonBox::Ok), Qt::LeftButton);
        });
        open->trigger(); // runs the modal dialog until OK
        QVERIFY2(sawSpan, qPrintable(spanText));
        QVERIFY(spy.wait(30000));
        QCOMPARE(spy.last().at(0).toBool(), true);
        const Timeline &tl = *w.timeline();
        QVERIFY(tl.window.active);
        QVERIFY(tl.window.readOnlyWindow);
        QVERIFY(tl.window.fromEventStore); // the full load before wrote the logs' event stores
        QCOMPARE(tl.window.endNs - tl.window.beginNs, int64_t(300'000'000));
        // 300 ms of 10 ms steps: about 30 steps and their forwards per worker, plus the epoch.
        const size_t n = tl.eventCount();
        QVERIFY2(n >= 2 * (1 + 30 * 2) && n <= 2 * (1 + 32 * 2), qPrintable(QString::number(n)));
        QVERIFY(w.statusText().contains(QStringLiteral("decoded from the event store")));
        QVERIFY(w.loadWindow().use);
    }

private:
    QTemporaryDir m_cache;
};

QTEST_MAIN(TstOpenWindow)
#include "tst_openwindow.moc"
