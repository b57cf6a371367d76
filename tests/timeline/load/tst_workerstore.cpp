// The training process writes its own log's index and event store when it closes (the config's
// event_store; recorder/logstorewriter.h, JobLoader::writeLogStore; docs/scale.md "What a worker
// writes itself"): real FileTimerClients record a 3-worker job (nested events with args,
// messages, counters, a worker with an event left open), close, and the first load of the job
// decodes every log from the stores they wrote — exactly what a parse of the same logs gives.
// Off by default; without a writer, or with nowhere to write, the log is left to be parsed and
// nothing else changes.
#include "recorder/filetimerclient.h"
#include "recorder/logstorewriter.h"
#include "timeline/load/jobloader.h"
#include "timeline/load/store/eventstore.h"
#include "timeline/load/store/logindex.h"

#include "indexjob.h"

#include <QTemporaryDir>
#include <QtTest>

#include <filesystem>
#include <fstream>

using namespace syncline;
using namespace indexjob;
using syncline::load::EventStore;
using syncline::load::LogIndex;

namespace {

void writeText(const std::string &p, const std::string &text)
{
    std::ofstream(p, std::ios::binary) << text;
}

// Records one worker of a 3-worker job in `dir` with the config `configJson`, and closes it.
void recordWorker(const std::string &dir, int rank, const std::string &configJson)
{
    const std::string config = dir + "/timer_config.json";
    writeText(config, configJson);
    qputenv("RANK", QByteArray::number(rank));
    qputenv("WORLD_SIZE", "3");
    {
        rec::FileTimerClient c(config, dir + "/timer_events.{rank}.log");
        for (int step = 0; step < 200; ++step) {
            c.startEvent("step", {{"step", int64_t(step)}, {"phase", std::string("train")}});
            c.startEvent("forward");
            c.endEvent("forward");
            c.startEvent("allreduce");
            c.message(true, (rank + 1) % 3, "m" + std::to_string(rank) + "-" + std::to_string(step));
            c.message(false, (rank + 2) % 3,
                      "m" + std::to_string((rank + 2) % 3) + "-" + std::to_string(step));
            c.endEvent("allreduce", {{"bytes", int64_t(4096)}});
            c.endEvent("step");
            if (rank == 1 && step % 10 == 0)
                c.counter("memory", double(step) * 1.5);
            c.instant("tick");
        }
        if (rank == 2)
            c.startEvent("left open"); // closed by close(): still an event of the log
        c.close();
    }
    qunsetenv("RANK");
    qunsetenv("WORLD_SIZE");
}

std::string logOf3(const std::string &dir, int w)
{
    return dir + "/timer_events." + std::to_string(w) + ".log";
}

std::vector<std::string> problemTexts(const Timeline &tl)
{
    std::vector<std::string> out;
    for (const LoadProblem &p : tl.problems)
        out.push_back(std::filesystem::path(p.file).filename().string() + " " + p.message + " @" +
                      std::to_string(p.line));
    return out;
}

LoadResult loadDir(const std::string &dir)
{
    LoadOptions o;
    o.paths = {dir};
    return JobLoader::load(o);
}

// The same logs in a folder of their own, parsed (no store beside them).
LoadResult parsedCopy(const std::string &dir, const std::string &to)
{
    std::filesystem::create_directories(to);
    for (int w = 0; w < 3; ++w)
        std::filesystem::copy_file(logOf3(dir, w), logOf3(to, w));
    std::filesystem::copy_file(dir + "/timer_config.json", to + "/timer_config.json");
    return loadDir(to);
}

} // namespace

class TstWorkerStore : public QObject
{
    Q_OBJECT

    QTemporaryDir m_cache;

private slots:
    void initTestCase()
    {
        QVERIFY(m_cache.isValid());
        qputenv("XDG_CACHE_HOME", m_cache.path().toLocal8Bit());
        JobLoader::installLogStoreWriter();
    }

    void storesWrittenAtCloseAreDecodedOnFirstOpen()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString() + "/job";
        std::filesystem::create_directories(d);
        for (int w = 0; w < 3; ++w)
            recordWorker(d, w, R"({"event_store": true, "flush_interval_ms": 5})");
        for (int w = 0; w < 3; ++w) {
            QVERIFY2(LogIndex::load(logOf3(d, w)), logOf3(d, w).c_str());
            QVERIFY(EventStore::open(logOf3(d, w)));
        }
        const LoadResult first = loadDir(d);
        QVERIFY(first.timeline);
        QCOMPARE(first.logsFromStores, size_t(3)); // nothing parsed but the header lines
        const LoadResult parsed = parsedCopy(d, tmp.path().toStdString() + "/parsed");
        QVERIFY(parsed.timeline);
        QCOMPARE(parsed.logsFromStores, size_t(0));
        QCOMPARE(events(*first.timeline, ClockMode::Corrected, false, 0, 0),
                 events(*parsed.timeline, ClockMode::Corrected, false, 0, 0));
        QCOMPARE(events(*first.timeline, ClockMode::Raw, false, 0, 0),
                 events(*parsed.timeline, ClockMode::Raw, false, 0, 0));
        QCOMPARE(problemTexts(*first.timeline), problemTexts(*parsed.timeline));
        QCOMPARE(first.timeline->links.size(), parsed.timeline->links.size());
        QVERIFY(first.timeline->links.size() >= 3 * 200);
        QCOMPARE(first.timeline->workers[1].counters.size(),
                 parsed.timeline->workers[1].counters.size());
        QVERIFY(!first.timeline->workers[1].counters.empty());
    }

    void offByDefault()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        recordWorker(d, 0, R"({"flush_interval_ms": 5})");
        QVERIFY(!LogIndex::load(logOf3(d, 0)));
        QVERIFY(!std::filesystem::exists(d + "/.syncline-index"));
    }

    // No writer installed (a program that links only the recorder), or none that succeeds:
    // the log is whole and parsed when opened; nothing is written.
    void withoutWriterTheLogIsParsed()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        rec::setLogStoreWriter(nullptr);
        recordWorker(d, 0, R"({"event_store": true})");
        rec::setLogStoreWriter([](const std::string &, const rec::TimerConfig &, std::string *e) {
            *e = "refused by the test";
            return false;
        });
        recordWorker(d, 1, R"({"event_store": true})");
        JobLoader::installLogStoreWriter();
        QVERIFY(!std::filesystem::exists(d + "/.syncline-index"));
        LoadOptions o;
        o.paths = {logOf3(d, 0), logOf3(d, 1)};
        o.writeIndex = false;
        const LoadResult r = JobLoader::load(o);
        QVERIFY(r.timeline);
        QCOMPARE(r.timeline->workers.size(), size_t(2));
        for (const Worker &w : r.timeline->workers)
            QVERIFY(w.info.closedCleanly);
    }

    // Nowhere to write (the cache place beside the log is a file, the cache dir cannot be
    // made): JobLoader::writeLogStore says so; the log is untouched.
    void nowhereToWrite()
    {
        QTemporaryDir tmp;
        const std::string d = tmp.path().toStdString();
        writeText(d + "/.syncline-index", "not a directory");
        const QByteArray cache = qgetenv("XDG_CACHE_HOME");
        qputenv("XDG_CACHE_HOME", QByteArray(d.c_str()) + "/.syncline-index/under-a-file");
        recordWorker(d, 0, R"({"event_store": true})");
        std::string error;
        QVERIFY(!JobLoader::writeLogStore(logOf3(d, 0), rec::TimerConfig::defaults(), &error));
        QVERIFY2(error.find("no index and event store could be written") != std::string::npos,
                 error.c_str());
        qputenv("XDG_CACHE_HOME", cache);
        QVERIFY(!LogIndex::load(logOf3(d, 0)));
        const LoadResult r = loadDir(logOf3(d, 0));
        QVERIFY(r.timeline);
        QVERIFY(r.timeline->workers[0].info.closedCleanly);
    }
};

QTEST_GUILESS_MAIN(TstWorkerStore)
#include "tst_workerstore.moc"
