// Tests of `syncline timeserver` as a real process: it answers on UDP, prints its counters
// periodically, stops cleanly on SIGTERM/SIGINT and refuses bad arguments.
#include "../common/loopbackudp.h"
#include "recorder/syncprotocol.h"

#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include <arpa/inet.h>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace proto = syncline::rec::syncproto;

namespace {

QString synclineBinary()
{
    return QStringLiteral(SYNCLINE_BINARY_DIR "/bin/syncline");
}

// Reads stdout lines until one matches re (or timeout); returns the match.
QRegularExpressionMatch waitForLine(QProcess &p, const QRegularExpression &re, int timeoutMs,
                                    QString *seen)
{
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < timeoutMs) {
        while (p.canReadLine()) {
            const QString line = QString::fromUtf8(p.readLine());
            seen->append(line);
            const auto m = re.match(line);
            if (m.hasMatch())
                return m;
        }
        p.waitForReadyRead(100);
    }
    return {};
}

// One request with the given token to 127.0.0.1:port; true when a valid reply came back.
bool askTime(int port, const std::string &token, proto::Packet *reply)
{
    const int fd = syncline::test::connectedUdpSocket(port);
    proto::Packet req;
    req.tokenHash = proto::tokenHash(token);
    req.requestId = 77;
    unsigned char buf[proto::kPacketSize];
    proto::encode(req, buf);
    ::send(fd, buf, sizeof buf, 0);
    pollfd pfd{fd, POLLIN, 0};
    bool ok = false;
    if (::poll(&pfd, 1, 2000) == 1) {
        unsigned char in[256];
        const ssize_t n = ::recv(fd, in, sizeof in, 0);
        ok = n > 0 && proto::decode(in, size_t(n), reply) == proto::DecodeStatus::Ok &&
             reply->requestId == 77;
    }
    ::close(fd);
    return ok;
}

} // namespace

class TstTimeServerCommand : public QObject
{
    Q_OBJECT
private slots:
    void servesAndStopsOnSignal_data();
    void servesAndStopsOnSignal();
    void badArguments_data();
    void badArguments();
    void statsIntervalOutOfRange_data();
    void statsIntervalOutOfRange();
    void survivesStdoutReaderGone();
};

void TstTimeServerCommand::servesAndStopsOnSignal_data()
{
    QTest::addColumn<int>("signal");
    QTest::newRow("SIGTERM") << int(SIGTERM);
    QTest::newRow("SIGINT") << int(SIGINT);
}

void TstTimeServerCommand::servesAndStopsOnSignal()
{
    QFETCH(int, signal);
    QProcess p;
    p.setProgram(synclineBinary());
    p.setArguments({"timeserver", "--port", "0", "--bind", "127.0.0.1", "--token", "job-7",
                    "--stats-interval", "0.2"});
    p.start();
    QVERIFY2(p.waitForStarted(5000), qPrintable(p.errorString()));
    QString seen;
    const auto started =
        waitForLine(p, QRegularExpression("listening on 127.0.0.1 port (\\d+)"), 10000, &seen);
    QVERIFY2(started.hasMatch(), qPrintable(seen));
    const int port = started.captured(1).toInt();
    QVERIFY(port > 0);
    proto::Packet reply;
    QVERIFY(askTime(port, "job-7", &reply));
    QVERIFY(reply.t2 <= reply.t3);
    QVERIFY(!askTime(port, "other-job", &reply)); // ignored, counted
    const auto stats =
        waitForLine(p, QRegularExpression("stats: served 1, .*token mismatch 1"), 10000, &seen);
    QVERIFY2(stats.hasMatch(), qPrintable(seen));
    ::kill(pid_t(p.processId()), signal);
    QVERIFY(p.waitForFinished(5000));
    seen += QString::fromUtf8(p.readAllStandardOutput());
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    QVERIFY2(seen.contains("timeserver stopped: served 1,"), qPrintable(seen));
}

void TstTimeServerCommand::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("port text") << QStringList{"--port", "abc"} << "--port: expected 0..65535";
    QTest::newRow("port range") << QStringList{"--port", "70000"} << "--port: expected 0..65535";
    QTest::newRow("missing value") << QStringList{"--token"} << "--token needs a value";
    QTest::newRow("bad interval") << QStringList{"--stats-interval", "0"}
                                  << "--stats-interval: expected seconds in 0.1..86400, got '0'";
    QTest::newRow("unknown") << QStringList{"--frobnicate"} << "unknown argument '--frobnicate'";
    QTest::newRow("bad bind") << QStringList{"--port", "0", "--bind", "256.0.0.1"} << "256.0.0.1";
}

void TstTimeServerCommand::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QProcess p;
    p.start(synclineBinary(), QStringList{"timeserver"} + args);
    QVERIFY(p.waitForFinished(10000));
    QVERIFY(p.exitCode() != 0);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QVERIFY2(err.contains(message), qPrintable(err));
}

// Values that used to spin a core and ignore SIGINT/SIGTERM (1e300, inf, nan: the timespec
// overflowed and sigtimedwait() failed at once, forever) or flood stdout (1e-10): refused with
// exit 2 and a message naming the option and the accepted range.
void TstTimeServerCommand::statsIntervalOutOfRange_data()
{
    QTest::addColumn<QString>("value");
    for (const char *v : {"1e300", "inf", "nan", "-inf", "1e-10", "0.05", "86401", "-1", "abc", ""})
        QTest::newRow(*v ? v : "empty") << QString(v);
}

void TstTimeServerCommand::statsIntervalOutOfRange()
{
    QFETCH(QString, value);
    QProcess p;
    p.start(synclineBinary(),
            {"timeserver", "--port", "0", "--bind", "127.0.0.1", "--stats-interval", value});
    const bool finished = p.waitForFinished(5000);
    if (!finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    QVERIFY2(finished, "the server ran on with an invalid --stats-interval");
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 2);
    const QString err = QString::fromUtf8(p.readAllStandardError());
    QCOMPARE(err, "syncline timeserver: --stats-interval: expected seconds in 0.1..86400, got '" +
                      value + "'\n");
}

// The stats reader (a pipe) goes away: the server must not die of SIGPIPE; the stats output
// stops, the clock keeps serving, and SIGTERM still ends it with status 0.
void TstTimeServerCommand::survivesStdoutReaderGone()
{
    int out[2];
    QCOMPARE(::pipe(out), 0);
    const QByteArray binary = synclineBinary().toLocal8Bit();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(out[1], 1);
        ::close(out[0]);
        ::close(out[1]);
        ::signal(SIGPIPE, SIG_DFL); // as a shell starts it
        ::execl(binary.constData(), binary.constData(), "timeserver", "--port", "0", "--bind",
                "127.0.0.1", "--stats-interval", "0.1", nullptr);
        ::_exit(127);
    }
    ::close(out[1]);
    std::string first;
    char c = 0;
    while (first.find('\n') == std::string::npos && ::read(out[0], &c, 1) == 1)
        first += c;
    ::close(out[0]); // the reader is gone
    int port = 0;
    const char *at = std::strstr(first.c_str(), "port ");
    if (at)
        port = std::atoi(at + 5);
    QVERIFY2(port > 0, first.c_str());
    QTest::qSleep(500); // several stats lines into the closed pipe
    proto::Packet reply;
    const bool served = askTime(port, "", &reply);
    ::kill(pid, SIGTERM);
    int status = 0;
    ::waitpid(pid, &status, 0);
    QVERIFY2(!WIFSIGNALED(status),
             qPrintable(QString("killed by signal %1").arg(WIFSIGNALED(status) ? WTERMSIG(status) : 0)));
    QVERIFY(served);
    QVERIFY(WIFEXITED(status));
    QCOMPARE(WEXITSTATUS(status), 0);
}

QTEST_GUILESS_MAIN(TstTimeServerCommand)
#include "tst_timeservercommand.moc"
