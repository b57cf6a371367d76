// Tests for WorkerIdentity (environment → identity) and LogPath (placeholder expansion).
#include "recorder/logpath.h"
#include "recorder/timerconfig.h"
#include "recorder/workeridentity.h"

#include <QtTest>

#include <map>
#include <unistd.h>

using namespace syncline::rec;

namespace {
using Env = std::map<std::string, std::string>;
WorkerIdentity::GetEnv lookup(const Env &env)
{
    return [&env](const char *k) -> const char * {
        auto it = env.find(k);
        return it == env.end() ? nullptr : it->second.c_str();
    };
}
} // namespace

class TstWorkerIdentity : public QObject
{
    Q_OBJECT
private slots:
    void torchrun();
    void noEnvironment();
    void mpiFallback();
    void badEnvironment_data();
    void badEnvironment();
    void expand_data();
    void expand();
    void invalidTemplate();
};

void TstWorkerIdentity::torchrun()
{
    const Env env = {{"RANK", "5"},
                     {"LOCAL_RANK", "1"},
                     {"WORLD_SIZE", "8"},
                     {"GROUP_RANK", "2"},
                     {"ROLE_NAME", "trainer"},
                     {"TORCHELASTIC_RESTART_COUNT", "3"},
                     {"TORCHELASTIC_RUN_ID", "job-42"},
                     {"SYNCLINE_HOST", "node-b"},
                     {"SYNCLINE_BOOT_ID", "boot-b"},
                     {"OMPI_COMM_WORLD_RANK", "7"}};
    const WorkerIdentity w = WorkerIdentity::fromEnvironment(lookup(env));
    QCOMPARE(w.rank, int64_t(5)); // torchrun wins over MPI
    QCOMPARE(w.localRank, int64_t(1));
    QCOMPARE(w.worldSize, int64_t(8));
    QCOMPARE(w.groupRank, int64_t(2));
    QCOMPARE(w.role, std::string("trainer"));
    QCOMPARE(w.restart, int64_t(3));
    QCOMPARE(w.runId, std::string("job-42"));
    QCOMPARE(w.host, std::string("node-b"));
    QCOMPARE(w.bootId, std::string("boot-b"));
    QCOMPARE(w.pid, int64_t(getpid()));
}

void TstWorkerIdentity::noEnvironment()
{
    const Env env;
    const WorkerIdentity w = WorkerIdentity::fromEnvironment(lookup(env));
    QCOMPARE(w.rank, int64_t(0));
    QCOMPARE(w.worldSize, int64_t(1));
    QCOMPARE(w.localRank, int64_t(0));
    QCOMPARE(w.role, std::string("default"));
    QCOMPARE(w.runId, std::string());
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    QCOMPARE(w.host, std::string(host));
    QCOMPARE(w.bootId.size(), size_t(36)); // a UUID from /proc/sys/kernel/random/boot_id
}

void TstWorkerIdentity::mpiFallback()
{
    const Env ompi = {{"OMPI_COMM_WORLD_RANK", "3"},
                      {"OMPI_COMM_WORLD_SIZE", "4"},
                      {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}};
    WorkerIdentity w = WorkerIdentity::fromEnvironment(lookup(ompi));
    QCOMPARE(w.rank, int64_t(3));
    QCOMPARE(w.worldSize, int64_t(4));
    QCOMPARE(w.localRank, int64_t(1));
    const Env pmi = {{"PMI_RANK", "6"}, {"PMI_SIZE", "7"}, {"MPI_LOCALRANKID", "2"}};
    w = WorkerIdentity::fromEnvironment(lookup(pmi));
    QCOMPARE(w.rank, int64_t(6));
    QCOMPARE(w.worldSize, int64_t(7));
    QCOMPARE(w.localRank, int64_t(2));
}

void TstWorkerIdentity::badEnvironment_data()
{
    QTest::addColumn<QString>("var");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("rank text") << "RANK"
                               << "abc"
                               << "environment RANK: expected a non-negative integer, got \"abc\"";
    QTest::newRow("rank negative")
        << "RANK"
        << "-1"
        << "environment RANK: expected a non-negative integer, got \"-1\"";
    QTest::newRow("world zero") << "WORLD_SIZE"
                                << "0"
                                << "environment WORLD_SIZE: expected an integer >= 1, got \"0\"";
    QTest::newRow("rank too big") << "RANK"
                                  << "1"
                                  << "environment: rank 1 is not below world size 1";
}

void TstWorkerIdentity::badEnvironment()
{
    QFETCH(QString, var);
    QFETCH(QString, value);
    QFETCH(QString, message);
    const Env env = {{var.toStdString(), value.toStdString()}};
    try {
        WorkerIdentity::fromEnvironment(lookup(env));
        QFAIL("no ConfigError");
    } catch (const ConfigError &e) {
        QCOMPARE(QString::fromUtf8(e.what()), message);
    }
}

void TstWorkerIdentity::expand_data()
{
    QTest::addColumn<QString>("tmpl");
    QTest::addColumn<int>("worldSize");
    QTest::addColumn<QString>("expected");
    QTest::newRow("default single") << "timer_events.log" << 1 << "timer_events.log";
    QTest::newRow("default many") << "timer_events.log" << 8 << "timer_events.3.log";
    QTest::newRow("dir many") << "out.d/logs/ev.jsonl" << 8 << "out.d/logs/ev.3.jsonl";
    QTest::newRow("no ext") << "out.d/events" << 8 << "out.d/events.3";
    QTest::newRow("dot file") << "logs/.events" << 8 << "logs/.events.3";
    QTest::newRow("rank given") << "r{rank}.log" << 8 << "r3.log";
    QTest::newRow("all") << "{run_id}/{host}/{role}-{rank}-{local_rank}-{restart}.log" << 8
                         << "j42/node-b/trainer-3-1-2.log";
    QTest::newRow("pid no rank") << "ev-{pid}.log" << 8 << "ev-4242.3.log";
    QTest::newRow("braces") << "a{{x}}.log" << 1 << "a{x}.log";
}

void TstWorkerIdentity::expand()
{
    QFETCH(QString, tmpl);
    QFETCH(int, worldSize);
    QFETCH(QString, expected);
    WorkerIdentity w;
    w.rank = 3;
    w.localRank = 1;
    w.worldSize = worldSize;
    w.restart = 2;
    w.runId = "j42";
    w.host = "node-b";
    w.role = "trainer";
    w.pid = 4242;
    QCOMPARE(QString::fromStdString(LogPath::expand(tmpl.toStdString(), w)), expected);
}

void TstWorkerIdentity::invalidTemplate()
{
    QCOMPARE(*LogPath::validate("a{b"), std::string("unmatched '{' at offset 1"));
    QCOMPARE(*LogPath::validate("a}b"), std::string("unmatched '}' at offset 1"));
    QCOMPARE(*LogPath::validate(""), std::string("empty path"));
    try {
        LogPath::expand("x{gpu}.log", WorkerIdentity());
        QFAIL("no ConfigError");
    } catch (const ConfigError &e) {
        QCOMPARE(std::string(e.what()),
                 std::string("log_path \"x{gpu}.log\": unknown placeholder {gpu}; known: {rank} "
                             "{local_rank} {restart} {pid} {host} {run_id} {role}"));
    }
}

QTEST_APPLESS_MAIN(TstWorkerIdentity)
#include "tst_workeridentity.moc"
