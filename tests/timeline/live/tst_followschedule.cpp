// FollowSchedule: coalescing, rescans on names changed and on the safety-net interval, with
// steady-clock times chosen by the test (the type never reads a clock itself).
#include "timeline/live/followschedule.h"

#include <QtTest>

using namespace syncline;
using namespace std::chrono_literals;

class TstFollowSchedule : public QObject
{
    Q_OBJECT
private slots:
    void firstReadRescansAtOnce()
    {
        FollowSchedule s;
        const auto t0 = FollowSchedule::Clock::now();
        QVERIFY(!s.started());
        QVERIFY(s.earliestRead() <= t0);
        QVERIFY(s.rescanDue(t0));
        QVERIFY(s.beginRead(t0));
        QVERIFY(s.started());
        QVERIFY(!s.rescanDue(t0 + 1ms));
    }
    void readsCoalesce()
    {
        FollowSchedule s({250, 20, 2000});
        const auto t0 = FollowSchedule::Clock::now();
        s.beginRead(t0);
        QCOMPARE(s.earliestRead(), t0 + 20ms);
        QVERIFY(!s.beginRead(t0 + 20ms)); // a plain read: no rescan
        QCOMPARE(s.earliestRead(), t0 + 40ms);
    }
    void namesChangedRescansOnce()
    {
        FollowSchedule s;
        const auto t0 = FollowSchedule::Clock::now();
        s.beginRead(t0);
        s.namesChanged();
        QVERIFY(s.rescanDue(t0 + 30ms));
        QVERIFY(s.beginRead(t0 + 30ms));
        QVERIFY(!s.rescanDue(t0 + 60ms));
        QVERIFY(!s.beginRead(t0 + 60ms));
    }
    void rescanIntervalIsASafetyNet()
    {
        FollowSchedule s({250, 20, 2000});
        const auto t0 = FollowSchedule::Clock::now();
        s.beginRead(t0);
        QVERIFY(!s.beginRead(t0 + 1000ms));
        QVERIFY(!s.rescanDue(t0 + 1999ms));
        QVERIFY(s.rescanDue(t0 + 2000ms));
        QVERIFY(s.beginRead(t0 + 2000ms));
        QVERIFY(!s.rescanDue(t0 + 3999ms)); // counted from the last rescan, not the last read
        QVERIFY(s.rescanDue(t0 + 4000ms));
    }
    void intervalsAreKept()
    {
        const FollowSchedule s({100, 50, 500});
        QCOMPARE(s.intervals().tickMs, 100);
        QCOMPARE(s.intervals().minReadIntervalMs, 50);
        QCOMPARE(s.intervals().rescanIntervalMs, 500);
    }
};

QTEST_APPLESS_MAIN(TstFollowSchedule)
#include "tst_followschedule.moc"
