// Tests of the time server and its wire format, over real UDP sockets on loopback.
#include "../common/loopbackudp.h"
#include "recorder/syncprotocol.h"
#include "recorder/timeserver.h"

#include <QtTest>

#include <arpa/inet.h>
#include <atomic>
#include <chrono>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace syncline::rec;
namespace proto = syncline::rec::syncproto;

namespace {

using Bytes = std::vector<unsigned char>;

// A UDP socket on 127.0.0.1 that talks to one server port.
class Peer
{
public:
    explicit Peer(int port) { m_fd = syncline::test::connectedUdpSocket(port, SOCK_CLOEXEC); }
    ~Peer() { ::close(m_fd); }
    void send(const Bytes &b) { QCOMPARE(::send(m_fd, b.data(), b.size(), 0), ssize_t(b.size())); }
    // The next datagram, or an empty vector after timeoutMs.
    Bytes receive(int timeoutMs)
    {
        pollfd p{m_fd, POLLIN, 0};
        if (::poll(&p, 1, timeoutMs) != 1)
            return {};
        Bytes b(2048);
        const ssize_t n = ::recv(m_fd, b.data(), b.size(), 0);
        b.resize(n > 0 ? size_t(n) : 0);
        return b;
    }

private:
    int m_fd = -1;
};

Bytes request(uint64_t id, uint64_t tokenHash = 0, int64_t t1 = 1234, size_t size = 64)
{
    proto::Packet p;
    p.tokenHash = tokenHash;
    p.requestId = id;
    p.t1 = t1;
    Bytes b(std::max<size_t>(size, proto::kPacketSize));
    proto::encode(p, b.data());
    b.resize(size);
    return b;
}

// A clock that counts: 1000, 2000, ... so the order of the server's reads is visible.
std::function<int64_t()>
countingClock(std::shared_ptr<std::atomic<int64_t>> c = std::make_shared<std::atomic<int64_t>>(0))
{
    return [c] { return c->fetch_add(1000) + 1000; };
}

// A server on 127.0.0.1, on a port the system picks.
TimeServerOptions loopbackOptions()
{
    TimeServerOptions o;
    o.bindAddress = "127.0.0.1";
    o.port = 0;
    return o;
}

} // namespace

// The server counts a reply after sendto() returns, so the client may hold the reply a moment
// before the count moves: wait (≤ 2 s) until `served` reaches the expected value, then read all.
TimeServerCounters countersOnceServed(const TimeServer &server, uint64_t served)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (server.counters().served < served && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return server.counters();
}

class TstTimeServer : public QObject
{
    Q_OBJECT
private slots:
    void wireFormatIsLittleEndian();
    void decodeRoundTrip();
    void tokenHash();
    void splitHostPort_data();
    void splitHostPort();
    void answersWithOrderedStamps();
    void replyNeverLargerThanRequest_data();
    void replyNeverLargerThanRequest();
    void ignoresAndCounts_data();
    void ignoresAndCounts();
    void tokenKeepsJobsApart();
    void secondServerOnSamePortFails();
    void stopFreesThePort();
    void badBindAddress();
};

void TstTimeServer::wireFormatIsLittleEndian()
{
    proto::Packet p;
    p.kind = proto::Kind::Reply;
    p.tokenHash = 0x0102030405060708ull;
    p.requestId = 0x1112131415161718ull;
    p.t1 = -2; // two's complement
    p.t2 = 0x2122232425262728ll;
    p.t3 = 0x3132333435363738ll;
    p.bootHash = 0x4142434445464748ull;
    p.serverInstance = 0x5152535455565758ull;
    unsigned char b[64];
    proto::encode(p, b);
    const unsigned char head[8] = {'S', 'L', 'T', 'S', 1, 0, 2, 0};
    QVERIFY(std::equal(head, head + 8, b));
    QCOMPARE(int(b[8]), 0x08);
    QCOMPARE(int(b[15]), 0x01);
    QCOMPARE(int(b[16]), 0x18);
    QCOMPARE(int(b[24]), 0xfe);
    QCOMPARE(int(b[31]), 0xff);
    QCOMPARE(int(b[32]), 0x28);
    QCOMPARE(int(b[47]), 0x31);
    QCOMPARE(int(b[48]), 0x48);
    QCOMPARE(int(b[63]), 0x51);
}

void TstTimeServer::decodeRoundTrip()
{
    proto::Packet p;
    p.kind = proto::Kind::Reply;
    p.tokenHash = 7;
    p.requestId = 99;
    p.t1 = -5;
    p.t2 = 1'000'000'000'123ll;
    p.t3 = 1'000'000'000'456ll;
    p.bootHash = 3;
    p.serverInstance = 4;
    unsigned char b[80] = {};
    proto::encode(p, b);
    proto::Packet q;
    QCOMPARE(int(proto::decode(b, 80, &q)), int(proto::DecodeStatus::Ok)); // extra bytes ignored
    QCOMPARE(int(q.kind), int(p.kind));
    QCOMPARE(q.tokenHash, p.tokenHash);
    QCOMPARE(q.requestId, p.requestId);
    QCOMPARE(q.t1, p.t1);
    QCOMPARE(q.t2, p.t2);
    QCOMPARE(q.t3, p.t3);
    QCOMPARE(q.bootHash, p.bootHash);
    QCOMPARE(q.serverInstance, p.serverInstance);
    QCOMPARE(int(proto::decode(b, 63, &q)), int(proto::DecodeStatus::TooShort));
}

void TstTimeServer::tokenHash()
{
    QCOMPARE(proto::tokenHash(""), uint64_t(0));
    QCOMPARE(proto::fnv1a64("a"), 0xaf63dc4c8601ec8cull); // FNV-1a 64 reference value
    QCOMPARE(proto::tokenHash("a"), 0xaf63dc4c8601ec8cull);
    QVERIFY(proto::tokenHash("job-1") != proto::tokenHash("job-2"));
}

void TstTimeServer::splitHostPort_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("host");
    QTest::addColumn<int>("port");
    QTest::newRow("host:port") << "node-a:123" << true << "node-a" << 123;
    QTest::newRow("default port") << "10.0.0.1" << true << "10.0.0.1" << 29400;
    QTest::newRow("v6 bracket") << "[::1]:5" << true << "::1" << 5;
    QTest::newRow("v6 bare") << "fe80::1" << true << "fe80::1" << 29400;
    QTest::newRow("port 0") << "h:0" << false << "" << 0;
    QTest::newRow("port too big") << "h:65536" << false << "" << 0;
    QTest::newRow("port not a number") << "h:http" << false << "" << 0;
    QTest::newRow("empty port") << "h:" << false << "" << 0;
    QTest::newRow("no host") << ":80" << false << "" << 0;
    QTest::newRow("unclosed bracket") << "[::1:80" << false << "" << 0;
}

void TstTimeServer::splitHostPort()
{
    QFETCH(QString, text);
    QFETCH(bool, ok);
    std::string gotHost, error;
    int gotPort = -1;
    QCOMPARE(proto::splitHostPort(text.toStdString(), 29400, false, &gotHost, &gotPort, &error),
             ok);
    if (ok) {
        QFETCH(QString, host);
        QFETCH(int, port);
        QCOMPARE(QString::fromStdString(gotHost), host);
        QCOMPARE(gotPort, port);
    } else {
        QVERIFY2(error.find(text.toStdString()) != std::string::npos, error.c_str());
    }
}

void TstTimeServer::answersWithOrderedStamps()
{
    auto counter = std::make_shared<std::atomic<int64_t>>(0);
    TimeServerOptions o = loopbackOptions();
    o.bootId = "boot-A";
    TimeServer server(o, countingClock(counter));
    std::string error;
    QVERIFY2(server.start(&error), error.c_str());
    QVERIFY(server.port() > 0);
    Peer peer(server.port());
    peer.send(request(42, 0, 777));
    const Bytes reply = peer.receive(5000);
    QCOMPARE(reply.size(), proto::kPacketSize);
    proto::Packet p;
    QCOMPARE(int(proto::decode(reply.data(), reply.size(), &p)), int(proto::DecodeStatus::Ok));
    QCOMPARE(int(p.kind), int(proto::Kind::Reply));
    QCOMPARE(p.requestId, uint64_t(42));
    QCOMPARE(p.t1, int64_t(777));
    // One read right after the receive (t2), the next just before the send (t3).
    QCOMPARE(p.t2, int64_t(1000));
    QCOMPARE(p.t3, int64_t(2000));
    QCOMPARE(p.bootHash, proto::fnv1a64("boot-A"));
    QCOMPARE(p.serverInstance, server.instance());
    QVERIFY(p.serverInstance != 0);
    QCOMPARE(countersOnceServed(server, 1).served, uint64_t(1));
    server.stop();
    QVERIFY(!server.running());
}

void TstTimeServer::replyNeverLargerThanRequest_data()
{
    QTest::addColumn<int>("size");
    QTest::addColumn<bool>("answered");
    QTest::newRow("exact") << 64 << true;
    QTest::newRow("padded more") << 300 << true;
    QTest::newRow("one short") << 63 << false;
    QTest::newRow("header only") << 8 << false;
}

void TstTimeServer::replyNeverLargerThanRequest()
{
    QFETCH(int, size);
    QFETCH(bool, answered);
    TimeServerOptions o = loopbackOptions();
    TimeServer server(o, countingClock());
    std::string error;
    QVERIFY2(server.start(&error), error.c_str());
    Peer peer(server.port());
    peer.send(request(1, 0, 5, size_t(size)));
    peer.send(request(2)); // a valid request after it: its reply proves the first was handled
    Bytes first = peer.receive(5000);
    QVERIFY(!first.empty());
    QVERIFY(first.size() <= size_t(std::max(size, 64)));
    proto::Packet p;
    QCOMPARE(int(proto::decode(first.data(), first.size(), &p)), int(proto::DecodeStatus::Ok));
    if (answered) {
        QCOMPARE(p.requestId, uint64_t(1));
        QCOMPARE(first.size(), proto::kPacketSize);
        QCOMPARE(countersOnceServed(server, 2).served, uint64_t(2));
    } else {
        QCOMPARE(p.requestId, uint64_t(2));
        const TimeServerCounters c = countersOnceServed(server, 1);
        QCOMPARE(c.malformed, uint64_t(1));
        QCOMPARE(c.served, uint64_t(1));
    }
}

void TstTimeServer::ignoresAndCounts_data()
{
    QTest::addColumn<QByteArray>("datagram");
    QTest::addColumn<QString>("counter");
    auto bytes = [](const Bytes &b) {
        return QByteArray(reinterpret_cast<const char *>(b.data()), qsizetype(b.size()));
    };
    Bytes wrongVersion = request(9);
    wrongVersion[4] = 2;
    Bytes reply = request(9);
    reply[6] = 2;
    Bytes unknownKind = request(9);
    unknownKind[6] = 7;
    Bytes reserved = request(9);
    reserved[7] = 1;
    Bytes httpish(64, 'x');
    std::copy_n("GET / HTTP/1.1", 14, httpish.begin());
    QTest::newRow("empty") << QByteArray() << "malformed";
    QTest::newRow("3 bytes") << QByteArray("SLT") << "malformed";
    QTest::newRow("foreign protocol") << bytes(httpish) << "foreign";
    QTest::newRow("wrong version") << bytes(wrongVersion) << "wrongVersion";
    QTest::newRow("a reply (no reflection)") << bytes(reply) << "malformed";
    QTest::newRow("unknown kind") << bytes(unknownKind) << "malformed";
    QTest::newRow("reserved byte set") << bytes(reserved) << "malformed";
    QTest::newRow("other job's token") << bytes(request(9, proto::tokenHash("other"))) << "token";
}

void TstTimeServer::ignoresAndCounts()
{
    QFETCH(QByteArray, datagram);
    QFETCH(QString, counter);
    TimeServerOptions o = loopbackOptions();
    TimeServer server(o, countingClock());
    std::string error;
    QVERIFY2(server.start(&error), error.c_str());
    Peer peer(server.port());
    peer.send(Bytes(datagram.begin(), datagram.end()));
    peer.send(request(2));
    const Bytes reply = peer.receive(5000);
    proto::Packet p;
    QCOMPARE(int(proto::decode(reply.data(), reply.size(), &p)), int(proto::DecodeStatus::Ok));
    QCOMPARE(p.requestId, uint64_t(2)); // the bad datagram got no answer
    QVERIFY(peer.receive(100).empty());
    const TimeServerCounters c = countersOnceServed(server, 1);
    QCOMPARE(c.served, uint64_t(1));
    QCOMPARE(c.malformed, uint64_t(counter == "malformed"));
    QCOMPARE(c.foreign, uint64_t(counter == "foreign"));
    QCOMPARE(c.wrongVersion, uint64_t(counter == "wrongVersion"));
    QCOMPARE(c.tokenMismatch, uint64_t(counter == "token"));
}

void TstTimeServer::tokenKeepsJobsApart()
{
    TimeServerOptions o = loopbackOptions();
    o.token = "job-A";
    TimeServer server(o, countingClock());
    std::string error;
    QVERIFY2(server.start(&error), error.c_str());
    Peer jobA(server.port()), jobB(server.port()), noToken(server.port());
    jobB.send(request(1, proto::tokenHash("job-B")));
    noToken.send(request(2, 0));
    jobA.send(request(3, proto::tokenHash("job-A")));
    const Bytes reply = jobA.receive(5000);
    proto::Packet p;
    QCOMPARE(int(proto::decode(reply.data(), reply.size(), &p)), int(proto::DecodeStatus::Ok));
    QCOMPARE(p.requestId, uint64_t(3));
    QCOMPARE(p.tokenHash, proto::tokenHash("job-A"));
    QVERIFY(jobB.receive(100).empty());
    QVERIFY(noToken.receive(0).empty());
    const TimeServerCounters c = countersOnceServed(server, 1);
    QCOMPARE(c.tokenMismatch, uint64_t(2));
    QCOMPARE(c.served, uint64_t(1));
}

void TstTimeServer::secondServerOnSamePortFails()
{
    TimeServerOptions o = loopbackOptions();
    TimeServer first(o, countingClock());
    std::string error;
    QVERIFY2(first.start(&error), error.c_str());
    o.port = first.port();
    TimeServer second(o, countingClock());
    QVERIFY(!second.start(&error));
    const std::string where = "127.0.0.1:" + std::to_string(first.port());
    QVERIFY2(error.find(where) != std::string::npos, error.c_str());
    QVERIFY2(error.find("in use") != std::string::npos, error.c_str());
}

void TstTimeServer::stopFreesThePort()
{
    TimeServerOptions o = loopbackOptions();
    TimeServer a(o, countingClock());
    std::string error;
    QVERIFY2(a.start(&error), error.c_str());
    o.port = a.port();
    a.stop();
    a.stop(); // idempotent
    TimeServer b(o, countingClock());
    QVERIFY2(b.start(&error), error.c_str());
    QVERIFY(b.instance() != a.instance());
    Peer peer(o.port);
    peer.send(request(5));
    QCOMPARE(peer.receive(5000).size(), proto::kPacketSize);
}

void TstTimeServer::badBindAddress()
{
    TimeServerOptions o;
    o.bindAddress = "256.1.1.1";
    o.port = 0;
    TimeServer s(o, [] { return int64_t(0); });
    std::string error;
    QVERIFY(!s.start(&error));
    QVERIFY2(error.find("256.1.1.1") != std::string::npos, error.c_str());
    QVERIFY(!s.running());
}

QTEST_APPLESS_MAIN(TstTimeServer)
#include "tst_timeserver.moc"
