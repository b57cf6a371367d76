// Memory of the recorder's per-thread buffers, measured as the resident set
// (VmRSS) of a real child process: many threads that record a few events each must cost a few
// KiB each, not the configured capacity (buffer_events 65536 × 32 B = 2 MiB, which used to be
// committed at a thread's first event), and the buffers of exited threads are handed back.
// Baseline in the same run: the same threads parked without recording.
#include "logreader.h"
#include "recorder/filetimerclient.h"
#include "recordertest.h"

#include <QTemporaryDir>
#include <QtTest>

#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

using namespace syncline::rec;
namespace test = syncline::test;

namespace {

// ASan's quarantine keeps freed memory resident and its redzones pad each block: resident-set
// bounds say nothing under it (the functional checks still run).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kRssMeaningful = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kRssMeaningful = false;
#else
constexpr bool kRssMeaningful = true;
#endif
#else
constexpr bool kRssMeaningful = true;
#endif

int64_t rssBytes()
{
    std::ifstream in("/proc/self/status");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("VmRSS:", 0) == 0)
            return std::stoll(line.substr(6)) * 1024;
    return -1;
}

// Starts `n` threads that each run `work`, then wait until all are running; returns the RSS
// growth while they all live, then releases and joins them.
template <class F> int64_t rssWithParkedThreads(int n, F work)
{
    std::mutex m;
    std::condition_variable cv;
    int arrived = 0;
    bool release = false;
    const int64_t before = rssBytes();
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            work(i);
            std::unique_lock<std::mutex> lock(m);
            ++arrived;
            cv.notify_all();
            cv.wait(lock, [&] { return release; });
        });
    int64_t during;
    {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return arrived == n; });
        during = rssBytes();
        release = true;
    }
    cv.notify_all();
    for (auto &t : threads)
        t.join();
    return during - before;
}

} // namespace

class TstRecorderMemory : public QObject
{
    Q_OBJECT
private slots:
    void fewEventsPerThreadCostFewKiB();
    void exitedThreadsAreHandedBack();
};

void TstRecorderMemory::fewEventsPerThreadCostFewKiB()
{
    QTemporaryDir dir;
    const std::string cfg = test::writeConfig(dir, R"({"flush_interval_ms": 10})");
    const std::string logPath = dir.filePath("threads.log").toStdString();
    constexpr int kThreads = 300;
    const int rc = test::inChild([&] {
        FileTimerClient client(cfg, logPath);
        const int64_t parked = rssWithParkedThreads(kThreads, [](int) {});
        const int64_t recording = rssWithParkedThreads(kThreads, [&](int i) {
            client.startEvent("work", {{"thread", int64_t(i)}});
            client.endEvent("work");
        });
        client.flush();
        const double perThread = double(recording - parked) / kThreads;
        std::fprintf(stderr,
                     "RSS: %d parked threads +%.1f MiB, recording one event each +%.1f "
                     "MiB: %.1f KiB a recording thread\n",
                     kThreads, double(parked) / 1048576, double(recording) / 1048576,
                     perThread / 1024);
        const RecorderStats s = client.stats();
        client.close();
        // A thread's buffer starts at 256 records (8 KiB); allow 64 KiB for allocator overhead.
        return (!kRssMeaningful || perThread < 64 * 1024) && s.dropped == 0 &&
               s.written == s.events; // B, E and a thread record per thread
    });
    QCOMPARE(rc, 0);
    QCOMPARE(testlog::read(logPath).ofType("B").size(), size_t(kThreads));
}

void TstRecorderMemory::exitedThreadsAreHandedBack()
{
    QTemporaryDir dir;
    const std::string cfg = test::writeConfig(dir, R"({"flush_interval_ms": 10})");
    const std::string logPath = dir.filePath("shortlived.log").toStdString();
    constexpr int kRounds = 100, kPerRound = 100;
    const int rc = test::inChild([&] {
        FileTimerClient client(cfg, logPath);
        // Warm-up round: thread stacks, allocator arenas.
        rssWithParkedThreads(kPerRound, [&](int) { client.instant("warm"); });
        client.flush();
        const int64_t before = rssBytes();
        for (int round = 0; round < kRounds; ++round) {
            rssWithParkedThreads(kPerRound, [&](int i) {
                client.startEvent("short");
                client.endEvent("short", {{"i", int64_t(i)}});
            });
            client.flush(); // the writer drains and frees the exited threads' buffers
        }
        const int64_t growth = rssBytes() - before;
        std::fprintf(stderr, "RSS after %d short-lived threads: +%.1f MiB\n", kRounds * kPerRound,
                     double(growth) / 1048576);
        const RecorderStats s = client.stats();
        client.close();
        return (!kRssMeaningful || growth < 32 * 1048576) && s.dropped == 0 &&
               s.written == s.events;
    });
    QCOMPARE(rc, 0);
    QCOMPARE(testlog::read(logPath).ofType("B").size(), size_t(kRounds * kPerRound));
}

QTEST_APPLESS_MAIN(TstRecorderMemory)
#include "tst_recordermemory.moc"
