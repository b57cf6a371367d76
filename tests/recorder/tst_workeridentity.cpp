// Tests for WorkerIdentity (environment → identity), the machine's boot id and host name, and
// LogPath (placeholder expansion and its inverse, the globs).
#include "recorder/logpath.h"
#include "recorder/timerconfig.h"
#include "recorder/workeridentity.h"

#include <QtTest>

#include <fnmatch.h>
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

// Identities that exercise every branch of expand(): one and many workers, empty and non-empty
// text placeholders, a host name with a dot (where the `.<rank>` tag may land).
std::vector<WorkerIdentity> identities()
{
    std::vector<WorkerIdentity> out;
    for (const int64_t world : {1, 8})
        for (const char *runId : {"j42", ""})
            for (const char *role : {"trainer", ""})
                for (const char *host : {"node-b", "n1.cluster", ""}) {
                    WorkerIdentity w;
                    w.worldSize = world;
                    w.rank = world > 1 ? 3 : 0;
                    w.localRank = 1;
                    w.restart = 2;
                    w.pid = 4242;
                    w.runId = runId;
                    w.role = role;
                    w.host = host;
                    out.push_back(w);
                }
    return out;
}

// The path as the file system names it: runs of '/' as one.
std::string collapseSlashes(const std::string &path)
{
    std::string out;
    for (const char c : path)
        if (c != '/' || out.empty() || out.back() != '/')
            out += c;
    return out;
}

// Whether one of the patterns matches `path` the way glob(3) does (per component, no leading
// dot matched by a wildcard).
bool anyMatches(const std::vector<std::string> &patterns, const std::string &path)
{
    for (const std::string &p : patterns)
        if (fnmatch(p.c_str(), path.c_str(), FNM_PATHNAME | FNM_PERIOD) == 0)
            return true;
    return false;
}

QStringList toQt(const std::vector<std::string> &v)
{
    QStringList out;
    for (const std::string &s : v)
        out << QString::fromStdString(s);
    return out;
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
    void machine();
    void expand_data();
    void expand();
    void invalidTemplate();
    void incarnation_data();
    void incarnation();
    void globs_data();
    void globs();
    void globsMatchEveryExpansion_data();
    void globsMatchEveryExpansion();
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

void TstWorkerIdentity::machine()
{
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    QCOMPARE(machineHostName(), std::string(host));
    const std::string boot = machineBootId();
    QCOMPARE(boot.size(), size_t(36)); // a UUID, without the newline
    QCOMPARE(machineBootId(), boot);   // one per boot
    // The environment overrides the machine for the identity only.
    const Env env = {{"SYNCLINE_BOOT_ID", "emulated"}};
    QCOMPARE(WorkerIdentity::fromEnvironment(lookup(env)).bootId, std::string("emulated"));
    QCOMPARE(WorkerIdentity::fromEnvironment(lookup(Env())).bootId, boot);
    QCOMPARE(machineBootId(), boot);
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

void TstWorkerIdentity::incarnation_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("restart");
    QTest::addColumn<int>("n");
    QTest::addColumn<QString>("expected");
    QTest::newRow("rank tag") << "logs/timer_events.3.log" << 1 << 0
                              << "logs/timer_events.3.r1.log";
    // Rank and restart collide (a second restart-1 incarnation): the pid tells them apart.
    QTest::newRow("same restart") << "logs/timer_events.3.log" << 1 << 1
                                  << "logs/timer_events.3.r1.p4242.log";
    QTest::newRow("pid reused") << "logs/timer_events.3.log" << 1 << 2
                                << "logs/timer_events.3.r1.p4242.1.log";
    // Restart 0: the plain name is restart 0's own, so the first clash is already one of rank
    // and restart (torchelastic's membership change keeps the restart count).
    QTest::newRow("world of one") << "timer_events.log" << 0 << 0 << "timer_events.r0.p4242.log";
    QTest::newRow("restart 0 again")
        << "timer_events.0.log" << 0 << 1 << "timer_events.0.r0.p4242.1.log";
    QTest::newRow("no ext") << "out.d/events" << 4 << 0 << "out.d/events.r4";
    QTest::newRow("dot file") << "logs/.events" << 1 << 1 << "logs/.events.r1.p4242";
}

void TstWorkerIdentity::incarnation()
{
    QFETCH(QString, path);
    QFETCH(int, restart);
    QFETCH(int, n);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(LogPath::incarnation(path.toStdString(), restart, 4242, n)),
             expected);
}

void TstWorkerIdentity::globs_data()
{
    // Each list ends with the `.r*` variants: the names a later incarnation takes when the
    // expanded file exists (LogPath::incarnation, e.g. timer_events.3.r1.log).
    QTest::addColumn<QString>("tmpl");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("default") << "timer_events.log"
                             << QStringList{"timer_events.log", "timer_events.*.log",
                                            "timer_events.r*.log", "timer_events.*.r*.log"};
    QTest::newRow("rank given") << "logs/{run_id}/rank{rank}.log"
                                << QStringList{"logs/*/rank*.log", "logs/rank*.log",
                                               "logs/*/rank*.r*.log", "logs/rank*.r*.log"};
    QTest::newRow("empty dir, tagged")
        << "logs/{run_id}/ev.log"
        << QStringList{"logs/*/ev.log",  "logs/*/ev.*.log",  "logs/ev.log",
                       "logs/ev.*.log",  "logs/*/ev.r*.log", "logs/*/ev.*.r*.log",
                       "logs/ev.r*.log", "logs/ev.*.r*.log"};
    QTest::newRow("numeric dir never empty")
        << "logs/{local_rank}/r{rank}.log" << QStringList{"logs/*/r*.log", "logs/*/r*.r*.log"};
    QTest::newRow("empty name start")
        << "{role}.log" << QStringList{"*.log",    "*.*.log",    ".log",    ".log.*",
                                       "*.r*.log", "*.*.r*.log", ".log.r*", ".log.r*.*"};
    QTest::newRow("no ext") << "out.d/events"
                            << QStringList{"out.d/events", "out.d/events.*", "out.d/events.r*",
                                           "out.d/events.r*.*"};
    QTest::newRow("dot file") << "logs/.events"
                              << QStringList{"logs/.events", "logs/.events.*", "logs/.events.r*",
                                             "logs/.events.r*.*"};
    QTest::newRow("adjacent placeholders")
        << "r{rank}{pid}.log" << QStringList{"r*.log", "r*.r*.log"};
    QTest::newRow("literal specials")
        << "a{{x}}[1]*.log"
        << QStringList{"a{x}\\[1\\]\\*.log", "a{x}\\[1\\]\\*.*.log", "a{x}\\[1\\]\\*.r*.log",
                       "a{x}\\[1\\]\\*.*.r*.log"};
    QTest::newRow("only a placeholder")
        << "logs/{run_id}" << QStringList{"logs/*", "logs/*.*", "logs/*.r*", "logs/*.r*.*"};
    QTest::newRow("leading empty dir")
        << "{run_id}/r{rank}.log"
        << QStringList{"*/r*.log", "/r*.log", "*/r*.r*.log", "/r*.r*.log"};
}

void TstWorkerIdentity::globs()
{
    QFETCH(QString, tmpl);
    QFETCH(QStringList, expected);
    QCOMPARE(toQt(LogPath::globs(tmpl.toStdString())), expected);
}

void TstWorkerIdentity::globsMatchEveryExpansion_data()
{
    QTest::addColumn<QString>("tmpl");
    QTest::addColumn<QStringList>("notMatching"); // paths expand() never gives for tmpl
    QTest::newRow("default") << "timer_events.log"
                             << QStringList{"timer_events.log.1", "timer_events.3.json",
                                            "other.log", "logs/timer_events.log"};
    QTest::newRow("run dir") << "logs/{run_id}/rank{rank}.log"
                             << QStringList{"logs/a/b/rank0.log", "logs/rank0.log.bak", "rank0.log",
                                            "logs/j42/rank0.txt", "logs/.x/rank0.log"};
    QTest::newRow("all") << "{run_id}/{host}/{role}-{rank}-{local_rank}-{restart}.log"
                         << QStringList{"j42/node-b/trainer-3-1-2.json", "j42/node-b/x/t-3-1-2.log",
                                        "j42/node-b/trainer.log"};
    QTest::newRow("pid no rank") << "ev-{pid}.log"
                                 << QStringList{"ev-4242.log.3", "ev.log", "x/ev-4242.log"};
    QTest::newRow("no ext") << "out.d/events" << QStringList{"out.d/events3", "out.d/other.3"};
    QTest::newRow("dot file") << "logs/.events" << QStringList{"logs/x.events", "logs/events.3"};
    QTest::newRow("name from text")
        << "logs/{host}_{role}" << QStringList{"logs/a_b/c", "logs/ab", "logs/.3"};
    QTest::newRow("empty name start") << "{role}.log" << QStringList{"x.txt", "log", "a/.log"};
    QTest::newRow("literal specials")
        << "a{{x}}[1]*.log" << QStringList{"a{x}1x.log", "a{x}[1]x.log", "ax[1]*.log"};
    QTest::newRow("leading empty dir")
        << "{run_id}/r{rank}.log" << QStringList{"r0.log", "/a/b/r0.log"};
}

void TstWorkerIdentity::globsMatchEveryExpansion()
{
    QFETCH(QString, tmpl);
    QFETCH(QStringList, notMatching);
    const std::vector<std::string> patterns = LogPath::globs(tmpl.toStdString());
    int checked = 0;
    for (const WorkerIdentity &w : identities()) {
        const std::string path = LogPath::expand(tmpl.toStdString(), w);
        const std::string onDisk = collapseSlashes(path);
        if (onDisk.empty() || onDisk.back() == '/')
            continue; // names a directory: the recorder cannot have written it
        QVERIFY2(anyMatches(patterns, onDisk),
                 qPrintable(QString::fromStdString(path) + " not matched by " +
                            toQt(patterns).join(' ')));
        // The names a later incarnation takes when that file exists (never truncated).
        for (int n = 0; n < 3; ++n) {
            const std::string again = collapseSlashes(LogPath::incarnation(path, 2, 4242, n));
            QVERIFY2(anyMatches(patterns, again),
                     qPrintable(QString::fromStdString(again) + " not matched by " +
                                toQt(patterns).join(' ')));
        }
        ++checked;
    }
    QVERIFY(checked >= 12);
    for (const QString &path : notMatching)
        QVERIFY2(!anyMatches(patterns, path.toStdString()), qPrintable(path));
}

QTEST_APPLESS_MAIN(TstWorkerIdentity)
#include "tst_workeridentity.moc"
