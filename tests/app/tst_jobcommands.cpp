// The job verbs of the `syncline` executable (stats, export, check) run as real processes on
// real traces and generated logs: exit statuses, stdout JSON shape, files written, stderr errors.
#include "tests/common/synclinerun.h"
#include "tests/common/testdata.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

using synclinerun::Run;
using synclinerun::slurp;
using synclinerun::syncline;
using synclinerun::write;

const char *kHeader =
    R"({"t":"header","format":"syncline","version":1,"rank":0,"restart":0,"host":"h","boot_id":"b","pid":7,"clock":"monotonic_raw","anchor":{"mono_ns":0,"wall_ns":1700000000000000000,"spread_ns":1},"config":null,"start_ns":0})"
    "\n";

} // namespace

class TstJobCommands : public QObject
{
    Q_OBJECT

private slots:
    void statsJsonOnHorovodTrace();
    void statsTextOnKineto();
    void checkCleanAndBroken();
    void checkWarnsOfCutLog();
    void checkSkipsFilesWithoutRecords();
    void checkCleanOnTheRepairHangReproducer();
    void exportFiles();
    void errors();
    void noAlign();
    void windowVerbsWithoutDisplay();
    void stdoutWriteErrorFails();
    void hostileTextIsEscapedAndExportsStayUtf8();
    void rangeReadsOnlyTheWindow();
};

void TstJobCommands::statsJsonOnHorovodTrace()
{
    const Run r =
        syncline({"stats", "--json",
                  QString::fromStdString(testdata::dir() + "/bluefog_timeline_1agent/ybc1.json")});
    QCOMPARE(r.exitCode, 0);
    const auto doc = nlohmann::json::parse(r.out);
    QCOMPARE(doc["workers"].size(), size_t(1));
    QCOMPARE(doc["workers"][0]["events"].get<int>(), 3538);
    QCOMPARE(doc["workers"][0]["clock"]["method"].get<std::string>(), std::string("none"));
    int allRankRows = 0;
    int64_t forwardTotal = 0;
    for (const auto &e : doc["events"]) {
        allRankRows += e["rank"].is_null();
        if (e["name"] == "FORWARD" && e["rank"].is_null())
            forwardTotal = e["total_ns"].get<int64_t>();
    }
    QCOMPARE(allRankRows, 6);
    QCOMPARE(forwardTotal, int64_t(3388731000));
}

void TstJobCommands::statsTextOnKineto()
{
    const Run r =
        syncline({"stats", QString::fromStdString(testdata::dir() + "/hta_sampled_kineto_2rank")});
    QCOMPARE(r.exitCode, 0);
    // ProfilerStep#551, #552 are one kind; the profiler's own span is no statistic.
    QVERIFY(r.out.find("ProfilerStep#") == std::string::npos);
    QVERIFY(r.out.find("ProfilerStep ") != std::string::npos);
    QVERIFY(r.out.find("PyTorch Profiler") == std::string::npos);
    QVERIFY(r.out.find("4811") != std::string::npos);
}

void TstJobCommands::checkCleanAndBroken()
{
    QTemporaryDir dir;
    write(dir.filePath("good.0.log"), std::string(kHeader) +
                                          R"({"t":"B","ts":10,"tid":1,"name":"a"})"
                                          "\n" +
                                          R"({"t":"E","ts":20,"tid":1,"name":"a"})"
                                          "\n" +
                                          R"({"t":"close","ts":30,"events":2,"dropped":0,"open":0})"
                                          "\n");
    Run r = syncline({"check", dir.path()});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.find("1 worker(s), 1 event(s): 0 error(s), 0 warning(s)") != std::string::npos);

    write(dir.filePath("bad.1.log"),
          std::string(kHeader).replace(std::string(kHeader).find("\"rank\":0"), 8, "\"rank\":1") +
              "garbage\n" +
              R"({"t":"E","ts":20,"tid":1,"name":"a"})"
              "\n");
    r = syncline({"check", dir.path()});
    QCOMPARE(r.exitCode, 1);
    const std::string bad = dir.filePath("bad.1.log").toStdString();
    QVERIFY2(r.out.find("warning: " + bad + ":2: malformed line: not a JSON object at column 1") !=
                 std::string::npos,
             r.out.c_str());
    QVERIFY(r.out.find(bad + ":3: end without a begin") != std::string::npos);
}

// A job directory also holds the launcher's output and torchrun's logs (`*.log`, no syncline
// records): each is skipped with an Info naming it, and `check` passes; a log that lost its
// header but has records still loads (rank from its file name, with its warning).
void TstJobCommands::checkSkipsFilesWithoutRecords()
{
    QTemporaryDir dir;
    write(dir.filePath("good.0.log"), std::string(kHeader) +
                                          R"({"t":"X","ts":10,"dur":5,"tid":1,"name":"a"})"
                                          "\n" +
                                          R"({"t":"close","ts":30,"events":1,"dropped":0,"open":0})"
                                          "\n");
    write(dir.filePath("launcher.log"),
          "[2026-12-03 10:00:00,000] torch.distributed.run: [WARNING] \n"
          "*****************************************\n"
          "Setting OMP_NUM_THREADS environment variable for each process to be 1\n"
          "[0]:worker rank=0 restart=0 world=2 pid=1234 log=timer_events.0.log\n");
    write(dir.filePath("stdout.log"), "epoch 1 loss 0.25\nepoch 2 loss 0.125\n");
    write(dir.filePath("empty.log"), "");
    Run r = syncline({"check", dir.path()});
    QVERIFY2(r.exitCode == 0, r.out.c_str());
    QVERIFY2(r.out.find("1 worker(s), 1 event(s): 0 error(s), 0 warning(s)") != std::string::npos,
             r.out.c_str());
    for (const char *name : {"launcher.log", "stdout.log"})
        QVERIFY2(r.out.find("info: " + dir.filePath(name).toStdString() +
                            ": no syncline records in its ") != std::string::npos,
                 r.out.c_str());
    QVERIFY2(r.out.find("info: " + dir.filePath("empty.log").toStdString() +
                        ": empty file (no syncline records); skipped") != std::string::npos,
             r.out.c_str());
    QVERIFY2(r.out.find("malformed") == std::string::npos, r.out.c_str());

    // A log without its header, records only: still a worker (rank 1 from the name).
    write(dir.filePath("headless.1.log"), R"({"t":"X","ts":10,"dur":5,"tid":1,"name":"a"})"
                                          "\n");
    r = syncline({"check", dir.path()});
    QVERIFY2(r.out.find("2 worker(s), 2 event(s): 0 error(s)") != std::string::npos, r.out.c_str());
    // A damaged log (lines that start like records, none readable) is still an error.
    write(dir.filePath("damaged.2.log"), "{\"t\":\n{garbage\n");
    r = syncline({"check", dir.path()});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.out.find("error: " + dir.filePath("damaged.2.log").toStdString() +
                        ": no records in file") != std::string::npos,
             r.out.c_str());
}

// A log cut while it was written (deleted, disk full, killed) has no close
// record; `check` used to pass it with 0 warnings.
void TstJobCommands::checkWarnsOfCutLog()
{
    QTemporaryDir dir;
    std::string log = kHeader;
    for (int i = 0; i < 100; ++i)
        log += R"({"t":"X","ts":)" + std::to_string(1000 * i) +
               R"(,"dur":500,"tid":1,"name":"step"})"
               "\n";
    const std::string closing = R"({"t":"close","ts":200000,"events":100,"dropped":0,"open":0})"
                                "\n";
    write(dir.filePath("w.0.log"), log + closing);
    Run r = syncline({"check", dir.path()});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.find("0 error(s), 0 warning(s)") != std::string::npos, r.out.c_str());

    // The disk filled up in the middle of a line: a torn last line, no close record.
    write(dir.filePath("w.0.log"), log.substr(0, log.size() - 17));
    r = syncline({"check", dir.path()});
    QCOMPARE(r.exitCode, 1);
    const std::string path = dir.filePath("w.0.log").toStdString();
    QVERIFY2(r.out.find("warning: " + path + ": rank 0: no close record: the log is cut") !=
                 std::string::npos,
             r.out.c_str());
    QVERIFY2(r.out.find("1 worker(s), 99 event(s): 0 error(s), 1 warning(s)") != std::string::npos,
             r.out.c_str());
}

// tests/data/causality-repair-hang (see its README): an independent writer's job whose start
// bursts are in flight at once. Read as one burst per burst id, its clocks are fitted without
// false steps and its constraints hold after correction: check ends clean, well within the
// test's time-out. (Read as single-exchange bursts, its maps once left constraints the repair
// spun on, and later stopped short of.)
void TstJobCommands::checkCleanOnTheRepairHangReproducer()
{
    QTemporaryDir dir; // a copy: a load writes its caches beside the logs
    QVERIFY(dir.isValid());
    const QString src = QString::fromStdString(testdata::dir() + "/causality-repair-hang");
    for (const QString &name : QDir(src).entryList(QDir::Files))
        QVERIFY(QFile::copy(src + "/" + name, dir.filePath(name)));
    QElapsedTimer timer;
    timer.start();
    const Run r = syncline({"check", dir.path()}, 60000);
    const qint64 ms = timer.elapsed();
    QVERIFY2(r.exitCode == 0, qPrintable(QString("exit %1 after %2 ms; %3 %4")
                                             .arg(r.exitCode)
                                             .arg(ms)
                                             .arg(QString::fromStdString(r.out))
                                             .arg(QString::fromStdString(r.err))));
    QVERIFY2(ms < 30000, qPrintable(QString::number(ms)));
    const QString out = QString::fromStdString(r.out);
    QVERIFY2(!out.contains("clock step") && !out.contains("causality"), qPrintable(out));
    QVERIFY2(out.endsWith("8 worker(s), 9880 event(s): 0 error(s), 0 warning(s)\n"),
             qPrintable(out));
}

void TstJobCommands::exportFiles()
{
    QTemporaryDir dir;
    const QString csv = dir.filePath("e.csv"), chrome = dir.filePath("c.json"),
                  scsv = dir.filePath("s.csv"), sjson = dir.filePath("s.json");
    const Run r =
        syncline({"export", QString::fromStdString(testdata::dir() + "/hta_sampled_kineto_2rank"),
                  "--csv", csv, "--chrome", chrome, "--stats-csv", scsv, "--stats-json", sjson});
    QCOMPARE(r.exitCode, 0);
    const std::string text = slurp(csv);
    QCOMPARE(text.substr(0, text.find('\n')),
             std::string("rank,restart,host,pid,tid,name,depth,start_ns,end_ns,duration_ns,local_"
                         "start_ns,local_end_ns,status"));
    QCOMPARE(std::count(text.begin(), text.end(), '\n'), long(1 + 4811 + 4676));
    QVERIFY(nlohmann::json::parse(slurp(chrome))["traceEvents"].size() > 9487);
    QCOMPARE(slurp(scsv).substr(0, 10), std::string("name,rank,"));
    QCOMPARE(nlohmann::json::parse(slurp(sjson))["workers"].size(), size_t(2));

    // --range keeps only the events overlapping [0, 1 ms] from the first event.
    const Run ranged =
        syncline({"export", QString::fromStdString(testdata::dir() + "/hta_sampled_kineto_2rank"),
                  "--csv", csv, "--range", "0:1ms"});
    QCOMPARE(ranged.exitCode, 0);
    const std::string part = slurp(csv);
    const long rows = long(std::count(part.begin(), part.end(), '\n')) - 1;
    QVERIFY(rows >= 1 && rows < 4811 + 4676);
}

void TstJobCommands::errors()
{
    Run r = syncline({"stats", "/no/such/path"});
    QVERIFY(r.exitCode != 0);
    QCOMPARE(r.err, std::string("syncline stats: /no/such/path: no such file or directory\n"));
    QVERIFY(r.out.empty());
    r = syncline({"export", QString::fromStdString(testdata::dir())});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("nothing to write") != std::string::npos);
    r = syncline({"stats", "--bogus", "x"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("unknown option '--bogus'") != std::string::npos);
    r = syncline({"check"});
    QCOMPARE(r.exitCode, 2);
    r = syncline({"export", QString::fromStdString(testdata::dir() + "/hta_sampled_kineto_2rank"),
                  "--csv", "/no/such/dir/x.csv"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.find("/no/such/dir/x.csv: cannot write") != std::string::npos);
}

// --no-align: accepted by the job verbs and the viewer (a clock note says so), refused with
// --align-on (the viewer too) with why.
void TstJobCommands::noAlign()
{
    const QString job = QString::fromStdString(testdata::dir() + "/hta_sampled_kineto_2rank");
    Run r = syncline({"check", job, "--no-align"});
    QVERIFY2(r.exitCode == 0 || r.exitCode == 1, r.err.c_str());
    QVERIFY2(r.out.find("collective alignment off (--no-align)") != std::string::npos,
             r.out.c_str());
    r = syncline({"check", job});
    QVERIFY(r.out.find("collective alignment off") == std::string::npos);
    r = syncline({"stats", job, "--no-align", "--align-on", "nccl"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.find("--align-on and --no-align contradict each other") != std::string::npos,
             r.err.c_str());
    r = syncline({"open", job, "--no-align", "--align-on", "nccl"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.find("--align-on and --no-align contradict each other") != std::string::npos,
             r.err.c_str());
    r = syncline({"open", "--help"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.find("--no-align") != std::string::npos, r.out.c_str());
}

void TstJobCommands::windowVerbsWithoutDisplay()
{
    // Without any display Qt would abort (SIGABRT); the window verbs must say why instead.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const QStringList &args : {QStringList{"open", dir.path()},
                                    QStringList{"attach", dir.path()}, QStringList{dir.path()}}) {
        QProcess p;
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove("DISPLAY");
        env.remove("WAYLAND_DISPLAY");
        env.remove("QT_QPA_PLATFORM");
        p.setProcessEnvironment(env);
        p.start(QStringLiteral(SYNCLINE_BINARY_DIR "/bin/syncline"), args);
        QVERIFY(p.waitForFinished(50000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 2);
        const QString err = QString::fromLocal8Bit(p.readAllStandardError());
        QVERIFY2(err.contains("no display") && err.contains("--png"), qPrintable(err));
    }
}

// Output that never reached stdout is a failure: with stdout on /dev/full
// (a disk that is full), `stats --json` and `--version` exit 1 and say why on stderr.
void TstJobCommands::stdoutWriteErrorFails()
{
    for (const QStringList &args :
         {QStringList{"stats", "--json",
                      QString::fromStdString(testdata::dir() + "/hta_sampled_kineto_2rank")},
          QStringList{"--version"}}) {
        QProcess p;
        p.setStandardOutputFile(QStringLiteral("/dev/full"));
        p.start(QStringLiteral(SYNCLINE_BINARY_DIR "/bin/syncline"), args);
        QVERIFY(p.waitForFinished(50000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1);
        const std::string err = p.readAllStandardError().toStdString();
        QVERIFY2(err.find("cannot write to standard output") != std::string::npos, err.c_str());
    }
    // The same commands on a working stdout still succeed.
    QCOMPARE(syncline({"--version"}).exitCode, 0);
}

// Text from a log is the writer's, not ours: control characters in a
// name or host used to reach the terminal raw from `stats` and `check` (set the title, clear the
// screen), and invalid UTF-8 in args made `export --chrome` write invalid JSON. Now the verbs
// print such bytes as \xNN, the loader replaces invalid UTF-8 by U+FFFD (a warning with the
// line says so) and every export is valid UTF-8.
void TstJobCommands::hostileTextIsEscapedAndExportsStayUtf8()
{
    QTemporaryDir dir;
    std::string head = kHeader;
    head.replace(head.find("\"host\":\"h\""), 10, R"("host":"evil\u001b]0;pwned\u0007")");
    const std::string path = dir.filePath("hostile.0.log").toStdString();
    write(
        dir.filePath("hostile.0.log"),
        head +
            R"({"t":"B","ts":10,"tid":1,"name":"\u001b[2Jclear"})"
            "\n" +
            "{\"t\":\"B\",\"ts\":11,\"tid\":1,\"name\":\"bad\xff\",\"args\":{\"k\":\"v\xfe\"}}\n" +
            R"({"t":"E","ts":12,"tid":1,"name":"\u009b31mfake"})"
            "\n" + // misnested: named
            "{\"t\":\"E\",\"ts\":13,\"tid\":1,\"name\":\"bad\xff\"}\n" +
            // A lone surrogate escape (valid JSON text, refused by strict parsers) in args and
            // in a name, beside a real pair and an escaped backslash (found by fuzzing).
            R"({"t":"B","ts":14,"tid":1,"name":"n\udc00","args":{"s":"x\udfffy","p":"\ud83d\ude00","e":"\\udfff"}})"
            "\n" +
            R"({"t":"E","ts":15,"tid":1,"name":"n\udc00"})"
            "\n" +
            R"({"t":"E","ts":20,"tid":1,"name":"\u001b[2Jclear"})"
            "\n");
    const auto noControls = [](const std::string &text) {
        return std::none_of(text.begin(), text.end(), [](char c) {
            const auto u = static_cast<unsigned char>(c);
            return (u < 0x20 && u != '\n') || u == 0x7f;
        });
    };
    const Run stats = syncline({"stats", dir.path()});
    QCOMPARE(stats.exitCode, 0);
    QVERIFY2(noControls(stats.out), stats.out.c_str());
    QVERIFY2(stats.out.find("evil\\x1b]0;pwned\\x07") != std::string::npos, stats.out.c_str());
    QVERIFY(stats.out.find("\\x1b[2Jclear") != std::string::npos);
    QVERIFY(stats.out.find("bad\xef\xbf\xbd") != std::string::npos); // U+FFFD, valid UTF-8

    const Run check = syncline({"check", dir.path()});
    QCOMPARE(check.exitCode, 1);
    QVERIFY2(noControls(check.out), check.out.c_str());
    QVERIFY2(check.out.find("warning: " + path +
                            ":3: invalid UTF-8 in name: 1 byte(s) replaced by U+FFFD") !=
                 std::string::npos,
             check.out.c_str());
    QVERIFY(check.out.find(path + ":3: invalid UTF-8 in args: 1 byte(s) replaced by U+FFFD") !=
            std::string::npos);
    QVERIFY2(check.out.find("misnesting: E \"\\xc2\\x9b31mfake\"") != std::string::npos,
             check.out.c_str());
    QVERIFY2(check.out.find(path + ":6: lone surrogate escape in args: 1 \\uD800-\\uDFFF "
                                   "without its pair replaced by \\ufffd") != std::string::npos,
             check.out.c_str());

    const QString chrome = dir.filePath("c.json"), csv = dir.filePath("e.csv");
    const Run exported = syncline({"export", dir.path(), "--chrome", chrome, "--csv", csv});
    QCOMPARE(exported.exitCode, 0);
    nlohmann::json trace;
    try {
        trace = nlohmann::json::parse(slurp(chrome)); // throws on invalid UTF-8
    } catch (const std::exception &e) {
        QFAIL(e.what());
    }
    bool sawArgs = false;
    for (const auto &ev : trace["traceEvents"])
        if (ev.contains("args") && ev["args"].contains("k")) {
            QCOMPARE(ev["args"]["k"].get<std::string>(), std::string("v\xef\xbf\xbd"));
            sawArgs = true;
        }
    QVERIFY(sawArgs);
    bool sawSurrogates = false; // nlohmann parsed the export: no lone surrogate is left in it
    for (const auto &ev : trace["traceEvents"])
        if (ev.contains("args") && ev["args"].contains("s")) {
            QCOMPARE(ev["args"]["s"].get<std::string>(), std::string("x\xef\xbf\xbdy"));
            QCOMPARE(ev["args"]["p"].get<std::string>(), std::string("\xf0\x9f\x98\x80"));
            QCOMPARE(ev["args"]["e"].get<std::string>(), std::string("\\udfff"));
            QCOMPARE(ev["name"].get<std::string>(), std::string("n\xef\xbf\xbd"));
            sawSurrogates = true;
        }
    QVERIFY(sawSurrogates);
    // The CSV as a JSON string: nlohmann refuses to dump invalid UTF-8.
    QVERIFY(!nlohmann::json(slurp(csv)).dump().empty());
}

// `--range A:B` on a simulated multi-worker job (syncline-sim, a real process): the first run has
// no index and cuts a full load (writing the index), the second reads only the window; both give
// exactly the rows of the full export that overlap [A, B] (times from the job's origin), and
// stats --range counts the same events either way.
void TstJobCommands::rangeReadsOnlyTheWindow()
{
    QTemporaryDir dir;
    const QString job = dir.filePath("job");
    QProcess sim;
    sim.start(QStringLiteral(SYNCLINE_BINARY_DIR "/bin/syncline-sim"),
              {"--seed", "11", "--workers", "12", "--duration-s", "5", "--iteration-ms", "2",
               "--per-host", "4", "--regime", "datacenter", "--out", job});
    QVERIFY(sim.waitForFinished(100000));
    QCOMPARE(sim.exitCode(), 0);
    const QString all = dir.filePath("all.csv"), a = dir.filePath("a.csv"),
                  b = dir.filePath("b.csv");
    // A plain export first, then remove the index it wrote: the first windowed run has none.
    QCOMPARE(syncline({"export", job, "--csv", all}).exitCode, 0);
    QVERIFY(QDir(job + "/.syncline-index").removeRecursively());
    Run r = syncline({"export", job, "--range", "1.5s:2750ms", "--csv", a});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(QFileInfo::exists(job + "/.syncline-index/timer_events.0.log.sidx"));
    r = syncline({"export", job, "--range", "1.5s:2750ms", "--csv", b});
    QCOMPARE(r.exitCode, 0);
    const std::string ta = slurp(a), tb = slurp(b);
    QVERIFY(std::count(tb.begin(), tb.end(), '\n') > 1000);
    QCOMPARE(tb, ta);
    // The rows of the full export overlapping the window, in the same order.
    std::istringstream in(slurp(all));
    std::string line, expected;
    std::getline(in, line);
    expected = line + "\n";
    while (std::getline(in, line)) {
        std::vector<std::string> f;
        std::stringstream ls(line);
        for (std::string c; std::getline(ls, c, ',');)
            f.push_back(c);
        const long long start = std::stoll(f[7]), end = std::stoll(f[8]);
        if (start <= 2750000000LL && end >= 1500000000LL)
            expected += line + "\n";
    }
    QCOMPARE(tb, expected);
    const Run windowed = syncline({"stats", job, "--json", "--range", "1.5s:2750ms"});
    QCOMPARE(windowed.exitCode, 0);
    QVERIFY(QDir(job + "/.syncline-index").removeRecursively());
    const Run cut = syncline({"stats", job, "--json", "--range", "1.5s:2750ms"});
    QCOMPARE(cut.exitCode, 0);
    const auto jw = nlohmann::json::parse(windowed.out), jc = nlohmann::json::parse(cut.out);
    QCOMPARE(jw["events"].dump(), jc["events"].dump());
    r = syncline({"stats", job, "--range", "2s:1s"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("--range: expected START:END") != std::string::npos);
}

QTEST_GUILESS_MAIN(TstJobCommands)
#include "tst_jobcommands.moc"
