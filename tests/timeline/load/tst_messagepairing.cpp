// MessagePairing on its own, against a plain statement of its rule (docs/sync.md §6): per id,
// the last send and the last receive (in worker, then file order) make a pair; every pair is an
// arrow (Timeline::links, MessageLink::lessByPair order), and the pairs across workers are the
// engine's (sorted by send worker, send time, receive worker, receive time). Random jobs of
// several workers and threads with repeated, one-sided and long ids; with and without the
// records handed over (consumable), with either output alone.
#include "timeline/load/build/messagepairing.h"

#include <QtTest>

#include <algorithm>
#include <map>
#include <random>
#include <tuple>

using namespace syncline;
using namespace syncline::load;

namespace {

struct Job
{
    Timeline tl;
    std::vector<MessageLog> logs;
};

Job randomJob(uint32_t seed, int workers, int records, int ids)
{
    std::mt19937 rng(seed);
    Job j;
    j.tl.workers.resize(size_t(workers));
    j.logs.resize(size_t(workers));
    for (int w = 0; w < workers; ++w) {
        j.tl.workers[size_t(w)].tracks.resize(1 + rng() % 3);
        int64_t t = 1000 + int64_t(rng() % 1000);
        for (int i = 0; i < records; ++i) {
            t += int64_t(rng() % 500);
            const int k = int(rng() % uint32_t(ids));
            // Some ids long (past the table's inline words), some sharing a prefix.
            const std::string id = k % 7 == 0 ? std::string(40, 'x') + std::to_string(k)
                                              : "m" + std::to_string(k);
            const uint32_t track = uint32_t(rng() % j.tl.workers[size_t(w)].tracks.size());
            j.logs[size_t(w)].add(t, rng() % 2 == 0, 0, id, track);
        }
    }
    return j;
}

using Link = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t, int64_t, int64_t>;

// The rule, plainly: per id its last send and last receive, in worker then file order.
void expected(const Job &j, std::vector<Link> &links, std::vector<sync::MessagePair> &pairs)
{
    struct End
    {
        bool has = false;
        uint32_t w = 0, t = 0;
        int64_t ns = 0;
    };
    std::map<std::string, std::pair<End, End>> last; // id → (send, recv)
    for (size_t w = 0; w < j.logs.size(); ++w)
        for (size_t i = 0; i < j.logs[w].size(); ++i) {
            auto &e = last[std::string(j.logs[w].id(i))];
            End &x = j.logs[w].send(i) ? e.first : e.second;
            x = {true, uint32_t(w), j.logs[w].track(i), j.logs[w][i].localNs};
        }
    for (const auto &[id, e] : last) {
        if (!e.first.has || !e.second.has)
            continue;
        links.emplace_back(e.first.w, e.first.t, e.second.w, e.second.t, e.first.ns, e.second.ns);
        if (e.first.w != e.second.w)
            pairs.push_back({int(e.first.w), e.first.ns, int(e.second.w), e.second.ns});
    }
    std::sort(links.begin(), links.end());
    std::sort(pairs.begin(), pairs.end(), [](const auto &a, const auto &b) {
        return std::tie(a.sendWorker, a.sendLocal, a.recvWorker, a.recvLocal) <
               std::tie(b.sendWorker, b.sendLocal, b.recvWorker, b.recvLocal);
    });
}

std::vector<Link> linksOf(const LinkTable &t)
{
    std::vector<Link> out;
    for (size_t i = 0; i < t.size(); ++i) {
        const MessageLink l = t[i];
        if (l.kind != MessageLink::Message)
            continue; // never in these jobs: then a link is missing and the comparison fails
        out.emplace_back(l.fromWorker, l.fromTrack, l.toWorker, uint32_t(l.toTrack), l.fromLocal,
                         l.toLocal);
    }
    return out;
}

bool samePairs(const std::vector<sync::MessagePair> &a, const std::vector<sync::MessagePair> &b)
{
    return a.size() == b.size() &&
           std::equal(a.begin(), a.end(), b.begin(), [](const auto &x, const auto &y) {
               return x.sendWorker == y.sendWorker && x.sendLocal == y.sendLocal &&
                      x.recvWorker == y.recvWorker && x.recvLocal == y.recvLocal;
           });
}

} // namespace

class TstMessagePairing : public QObject
{
    Q_OBJECT

private slots:
    void matchesTheRule_data()
    {
        QTest::addColumn<uint>("seed");
        QTest::addColumn<int>("workers");
        QTest::addColumn<int>("records");
        QTest::addColumn<int>("ids");
        QTest::newRow("one worker") << 1u << 1 << 200 << 50;
        QTest::newRow("few ids, many repeats") << 2u << 4 << 300 << 5;
        QTest::newRow("mostly unique") << 3u << 8 << 500 << 4000;
        QTest::newRow("many workers") << 4u << 33 << 120 << 900;
    }
    void matchesTheRule()
    {
        QFETCH(uint, seed);
        QFETCH(int, workers);
        QFETCH(int, records);
        QFETCH(int, ids);
        const Job j = randomJob(seed, workers, records, ids);
        std::vector<Link> wantLinks;
        std::vector<sync::MessagePair> wantPairs;
        expected(j, wantLinks, wantPairs);
        QVERIFY(!wantLinks.empty());

        std::vector<sync::MessagePair> pairs;
        LinkTable links;
        MessagePairing::run(j.tl, j.logs, nullptr, &pairs, &links);
        std::vector<Link> got = linksOf(links);
        // lessByPair order: (fromWorker, fromTrack, toWorker, toTrack, kind, fromLocal, ...).
        for (size_t i = 1; i < links.size(); ++i)
            QVERIFY(!MessageLink::lessByPair(links[i], links[i - 1]));
        std::sort(got.begin(), got.end());
        QCOMPARE(got, wantLinks);
        QVERIFY(samePairs(pairs, wantPairs));

        // Either output alone, and the records handed over: the same results.
        std::vector<sync::MessagePair> pairsOnly;
        MessagePairing::run(j.tl, j.logs, nullptr, &pairsOnly, nullptr);
        QVERIFY(samePairs(pairsOnly, wantPairs));
        std::vector<MessageLog> consumed = j.logs;
        std::vector<sync::MessagePair> pairs2;
        LinkTable links2;
        MessagePairing::run(j.tl, consumed, &consumed, &pairs2, &links2);
        QVERIFY(samePairs(pairs2, wantPairs));
        std::vector<Link> got2 = linksOf(links2);
        std::sort(got2.begin(), got2.end());
        QCOMPARE(got2, wantLinks);
    }

    // A send and a receive whose thread the worker does not have: no arrow, still the
    // engine's pair (its clocks are still constrained).
    void tracklessEndsArePairsWithoutArrows()
    {
        Job j;
        j.tl.workers.resize(2);
        j.tl.workers[0].tracks.resize(1);
        j.tl.workers[1].tracks.resize(1);
        j.logs.resize(2);
        j.logs[0].add(100, true, 1, "a", 0);
        j.logs[1].add(200, false, 0, "a", 0);
        j.logs[0].add(300, true, 1, "b", 5); // no track 5
        j.logs[1].add(400, false, 0, "b", 0);
        std::vector<sync::MessagePair> pairs;
        LinkTable links;
        MessagePairing::run(j.tl, j.logs, nullptr, &pairs, &links);
        QCOMPARE(links.size(), size_t(1));
        QCOMPARE(links[0].fromLocal, int64_t(100));
        QCOMPARE(pairs.size(), size_t(2));
        QCOMPARE(pairs[1].sendLocal, int64_t(300));
        QCOMPARE(pairs[1].recvLocal, int64_t(400));
    }
};

QTEST_APPLESS_MAIN(TstMessagePairing)
#include "tst_messagepairing.moc"
