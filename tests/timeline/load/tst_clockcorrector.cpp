// The whole clock-correction pipeline against the simulator's ground truth: the simulator writes
// a real job directory (log format v1 + truth files) into a temporary folder, JobLoader reads
// those files (parse, nest, ClockCorrector → sync engine → CLC), and every event's corrected
// global start and end is compared with its true time read back from truth_events.csv.
//
// Scale: truth is reference-clock ns; the timeline's corrected global = reference + E
// (Timeline::referenceShiftNs), so error = startNs − E − true. Checks per regime: every stamp
// within its segment's guaranteed bound (+2 ns rounding), p99 |error| within the regime's goal
//, no receive before its send and no collective end before that instance's latest begin
// on the corrected timeline, every simulated clock step flagged, and raw mode off by exactly the
// simulated clock offsets (the simulator's wall anchors carry no correction).
#include "sim/accuracyevaluator.h"
#include "sim/joblogwriter.h"
#include "sim/simulator.h"
#include "timeline/load/build/clockcorrector.h"
#include "timeline/load/jobloader.h"
#include "timeline/load/parse/messagelog.h"

#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <tuple>

using namespace syncline;

namespace {

struct TruthEvent
{
    std::string name;
    int64_t trueBegin = 0, trueEnd = 0;
};

struct TruthWorker
{
    int host = 0;
    int64_t offsetNs = 0;
    double floorNs = 0;
};

using EventKey = std::tuple<int, int64_t, int64_t>; // rank, tid, local begin

std::vector<std::vector<std::string>> readCsv(const std::string &path)
{
    std::ifstream f(path);
    std::vector<std::vector<std::string>> rows;
    std::string line;
    std::getline(f, line); // header
    while (std::getline(f, line)) {
        std::vector<std::string> cells;
        std::stringstream ss(line);
        std::string cell;
        while (std::getline(ss, cell, ','))
            cells.push_back(cell);
        rows.push_back(std::move(cells));
    }
    return rows;
}

std::map<EventKey, TruthEvent> readTruthEvents(const std::string &dir)
{
    std::map<EventKey, TruthEvent> out;
    // rank,event,name,tid,local_begin_ns,local_end_ns,true_begin_ns,true_end_ns
    for (const auto &c : readCsv(dir + "/truth_events.csv"))
        out[{std::stoi(c[0]), std::stoll(c[3]), std::stoll(c[4])}] = {c[2], std::stoll(c[6]),
                                                                      std::stoll(c[7])};
    return out;
}

std::map<int, TruthWorker> readTruthWorkers(const std::string &dir)
{
    std::map<int, TruthWorker> out;
    // rank,host,host_name,boot_id,offset_ns,drift_ppm,asymmetry_ns,floor_ns
    for (const auto &c : readCsv(dir + "/truth_workers.csv"))
        out[std::stoi(c[0])] = {std::stoi(c[1]), std::stoll(c[4]), std::stod(c[7])};
    return out;
}

// (send rank, send local, recv rank, recv local) of every message, from the logs' msg records.
struct LoggedMessage
{
    int sendRank = -1, recvRank = -1;
    int64_t sendLocal = 0, recvLocal = 0;
};

std::map<std::string, LoggedMessage> readMessages(const std::string &dir, int workers)
{
    std::map<std::string, LoggedMessage> out;
    for (int r = 0; r < workers; ++r) {
        std::ifstream f(dir + "/" + sim::JobLogWriter::logFileName(r));
        std::string line;
        while (std::getline(f, line)) {
            if (line.rfind("{\"t\":\"msg\"", 0) != 0)
                continue;
            const nlohmann::json j = nlohmann::json::parse(line);
            LoggedMessage &m = out[j.at("id").get<std::string>()];
            if (j.at("dir") == "send") {
                m.sendRank = r;
                m.sendLocal = j.at("ts");
            } else {
                m.recvRank = r;
                m.recvLocal = j.at("ts");
            }
        }
    }
    return out;
}

double quantile(std::vector<double> v, double q)
{
    if (v.empty())
        return 0.0;
    const size_t k = std::min(v.size() - 1, size_t(q * double(v.size())));
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    return v[k];
}

// Number of runs of consecutive step-flagged segments (one per detected step gap).
int stepGaps(const sync::ClockMap &m)
{
    int gaps = 0;
    bool inGap = false;
    for (const sync::ClockSegment &s : m.segments()) {
        const bool flagged = (s.flags & sync::SegStepDetected) != 0;
        gaps += flagged && !inGap ? 1 : 0;
        inGap = flagged;
    }
    return gaps;
}

} // namespace

class TstClockCorrector : public QObject
{
    Q_OBJECT

private slots:
    void correctedMatchesTruth_data();
    void correctedMatchesTruth();
    void pairMessagesById();
    void pairingMatchesTheRuleOnRandomRecords();
};

void TstClockCorrector::correctedMatchesTruth_data()
{
    QTest::addColumn<QString>("regime");
    QTest::addColumn<int>("perHost");
    QTest::addColumn<double>("durationS");
    QTest::addColumn<double>("goalP99Ns"); // the accuracy goals, absolute |error|
    // Seeds are fixed; the stress seed has clock steps within its 5 minutes.
    QTest::newRow("datacenter") << "datacenter" << 1 << 180.0 << 1000.0 + 300.0;
    QTest::newRow("datacenter, 2 processes per host") << "datacenter" << 2 << 180.0 << 1300.0;
    QTest::newRow("rdma") << "rdma" << 1 << 180.0 << 200.0;
    QTest::newRow("sparse") << "sparse" << 1 << 300.0 << 1000.0 + 1000.0;
    QTest::newRow("stress") << "stress" << 1 << 300.0 << 1000.0 + 3000.0;
}

void TstClockCorrector::correctedMatchesTruth()
{
    QFETCH(QString, regime);
    QFETCH(int, perHost);
    QFETCH(double, durationS);
    QFETCH(double, goalP99Ns);
    const int workers = 8;
    sim::SimConfig cfg =
        sim::configFor(*sim::parseRegime(regime.toStdString()), 7, workers, durationS);
    cfg.workersPerHost = perHost;
    cfg.iterationMs = 200.0;
    const sim::SimJob job = sim::Simulator::run(cfg);
    QTemporaryDir tmp;
    QVERIFY(tmp.isValid());
    const std::string dir = tmp.path().toStdString();
    QCOMPARE(QString::fromStdString(sim::JobLogWriter::write(job, dir)), QString());

    LoadOptions opt;
    opt.paths = {dir};
    opt.alignOn = "allreduce"; // collectives as causality constraints, as `--align-on` would
    opt.threads = 2;
    const LoadResult res = JobLoader::load(opt);
    QCOMPARE(QString::fromStdString(res.fatalError), QString());
    QVERIFY(res.timeline);
    Timeline &tl = *res.timeline;
    for (const LoadProblem &p : tl.problems)
        qWarning("load problem: %s:%lld: %s", p.file.c_str(), static_cast<long long>(p.line),
                 p.message.c_str());
    QCOMPARE(int(tl.problems.size()), 0);
    QCOMPARE(int(tl.workers.size()), workers);

    const std::map<EventKey, TruthEvent> truth = readTruthEvents(dir);
    const std::map<int, TruthWorker> truthWorkers = readTruthWorkers(dir);
    QCOMPARE(int(truthWorkers.size()), workers);
    QCOMPARE(tl.eventCount(), truth.size());
    const int64_t shift = tl.referenceShiftNs;

    // Every stamp: corrected error against the truth, within the guaranteed bound.
    std::vector<double> errs;
    int64_t stamps = 0, outsideBound = 0, inStepGaps = 0;
    double worstExcess = 0; // |error| − bound, largest
    int64_t globalMin = INT64_MAX;
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const Worker &wk = tl.workers[w];
        QCOMPARE(wk.info.rank, int(w));
        QCOMPARE(wk.clock.method, sync::ClockMethod::SyncSamples);
        for (size_t t = 0; t < wk.tracks.size(); ++t) {
            const EventTrack &tr = wk.tracks[t];
            for (size_t i = 0; i < tr.count(); ++i) {
                const auto it = truth.find({wk.info.rank, tr.tid, tr.localStart[i]});
                QVERIFY2(it != truth.end(), "event not in truth_events.csv");
                QCOMPARE(tl.names.name(tr.nameId[i]), std::string_view(it->second.name));
                globalMin = std::min(globalMin, tl.startNs(w, t, i, ClockMode::Corrected));
                const int64_t local[2] = {tr.localStart[i], tr.localEnd[i]};
                const int64_t global[2] = {tl.startNs(w, t, i, ClockMode::Corrected),
                                           tl.endNs(w, t, i, ClockMode::Corrected)};
                const int64_t want[2] = {it->second.trueBegin, it->second.trueEnd};
                for (int e = 0; e < 2; ++e) {
                    const double err = std::fabs(double(global[e] - shift - want[e]));
                    const sync::ClockSegment &seg = wk.corrected.segmentAt(local[e]);
                    ++stamps;
                    if (err > double(seg.boundNs) + 2.0) {
                        ++outsideBound;
                        worstExcess = std::max(worstExcess, err - double(seg.boundNs));
                    }
                    if (seg.flags & sync::SegStepDetected)
                        ++inStepGaps;
                    else
                        errs.push_back(err);
                }
            }
        }
    }
    QCOMPARE(tl.originNs(ClockMode::Corrected), globalMin); // origin = earliest corrected start
    const double p99 = quantile(errs, 0.99);
    qInfo("%s: %lld stamps (%lld in step gaps), p50 %.1f ns, p99 %.1f ns (goal %.0f), max %.1f ns, "
          "E = %lld ns",
          qPrintable(regime), static_cast<long long>(stamps), static_cast<long long>(inStepGaps),
          quantile(errs, 0.5), p99, goalP99Ns, *std::max_element(errs.begin(), errs.end()),
          static_cast<long long>(shift));
    // The same job straight into the engine (no files): the loader path must not be worse.
    std::vector<sync::ClockMap> direct;
    for (const sync::WorkerClockResult &r : sync::runSyncEngine(job.engineInput()).workers)
        direct.push_back(r.map);
    const sim::AccuracyStats engineOnly = sim::AccuracyEvaluator::evaluate(job, direct);
    qInfo("engine only: p50 %.1f ns, p99 %.1f ns, max %.1f ns", engineOnly.p50Ns, engineOnly.p99Ns,
          engineOnly.maxNs);
    QVERIFY2(outsideBound == 0, qPrintable(QStringLiteral("%1 stamps outside the bound, worst by "
                                                          "%2 ns")
                                               .arg(outsideBound)
                                               .arg(worstExcess)));
    QVERIFY2(p99 <= goalP99Ns, qPrintable(QStringLiteral("p99 %1 ns > goal").arg(p99)));
    QVERIFY(inStepGaps * 100 < stamps); // step gaps are short

    // Causality on the corrected timeline, checked here independently of the engine's report.
    int64_t messages = 0;
    for (const auto &[id, m] : readMessages(dir, workers)) {
        QVERIFY2(m.sendRank >= 0 && m.recvRank >= 0, id.c_str());
        ++messages;
        QVERIFY2(tl.toGlobal(size_t(m.recvRank), m.recvLocal, ClockMode::Corrected) >=
                     tl.toGlobal(size_t(m.sendRank), m.sendLocal, ClockMode::Corrected),
                 id.c_str());
    }
    QCOMPARE(messages, int64_t(job.messages.size()));
    std::map<int64_t, std::pair<int64_t, std::vector<int64_t>>> allreduce; // k → latest begin, ends
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        std::vector<std::pair<int64_t, int64_t>> mine;
        for (const EventTrack &tr : tl.workers[w].tracks)
            for (size_t i = 0; i < tr.count(); ++i)
                if (tl.names.name(tr.nameId[i]) == "allreduce")
                    mine.push_back({tl.toGlobal(w, tr.localStart[i], ClockMode::Corrected),
                                    tl.toGlobal(w, tr.localEnd[i], ClockMode::Corrected)});
        std::sort(mine.begin(), mine.end());
        for (size_t k = 0; k < mine.size(); ++k) {
            auto &[latest, ends] =
                allreduce.try_emplace(int64_t(k), INT64_MIN, std::vector<int64_t>{}).first->second;
            latest = std::max(latest, mine[k].first);
            ends.push_back(mine[k].second);
        }
    }
    for (const auto &[k, v] : allreduce)
        for (int64_t end : v.second)
            QVERIFY2(end >= v.first, qPrintable(QStringLiteral("allreduce %1").arg(k)));
    QCOMPARE(tl.causality.violationsAfter, int64_t(0));

    // Clock steps: every simulated step is flagged on every worker of its host.
    std::map<int, int> stepsPerHost;
    for (const auto &c : readCsv(dir + "/truth_steps.csv"))
        ++stepsPerHost[std::stoi(c[0])];
    int totalSteps = 0;
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const int host = truthWorkers.at(int(w)).host;
        totalSteps += perHost == 1 ? stepsPerHost[host] : 0;
        QCOMPARE(stepGaps(tl.workers[w].corrected), stepsPerHost[host]);
    }
    if (regime == "stress")
        QVERIFY(totalSteps > 0); // the seed must exercise step detection

    // Raw mode: the wall anchors carry no correction, so a worker's raw error is −θ of its host:
    // relative to rank 0 at the first event, the difference of the simulated offsets (plus drift
    // over the first 0.2 s, < 40 µs; no step happens that early in these seeds).
    std::vector<double> rawErr(static_cast<size_t>(workers));
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const EventTrack &tr = tl.workers[w].tracks.front();
        const TruthEvent &te = truth.at({int(w), tr.tid, tr.localStart[0]});
        rawErr[w] = double(tl.startNs(w, 0, 0, ClockMode::Raw) - te.trueBegin);
    }
    double spread = 0;
    for (size_t w = 1; w < size_t(workers); ++w) {
        const double expected =
            -double(truthWorkers.at(int(w)).offsetNs - truthWorkers.at(0).offsetNs);
        QVERIFY2(std::fabs(rawErr[w] - rawErr[0] - expected) < 40'000.0,
                 qPrintable(QStringLiteral("rank %1: raw %2 ns vs offsets %3 ns")
                                .arg(w)
                                .arg(rawErr[w] - rawErr[0])
                                .arg(expected)));
        spread = std::max(spread, std::fabs(rawErr[w] - rawErr[0]));
    }
    QVERIFY(spread > 1e6); // offsets up to ±1 s: the raw view is visibly skewed
}

// Message pairs from the compact records: per id the last send and the last receive
// (worker order, then file order), only across workers, ids compared exactly (not by hash), in
// (send worker, send time) order.
void TstClockCorrector::pairMessagesById()
{
    Timeline tl;
    tl.workers.resize(3);
    std::vector<load::MessageLog> m(3);
    m[0].add(100, true, 1, "a");
    m[0].add(200, true, 1, "b");
    m[0].add(300, true, 0, "self"); // both ends on worker 0: no pair
    m[0].add(310, false, 0, "self");
    m[0].add(400, true, 2, "dup");
    m[0].add(450, true, 2, "dup"); // a later send of the same id wins
    m[1].add(150, false, 0, "a");
    m[1].add(250, false, 0, "b");
    m[1].add(260, false, 0, std::string_view("b\0x", 3)); // another id that starts like "b"
    m[2].add(500, false, 0, "dup");
    m[2].add(20, true, 1, "c");
    m[1].add(30, false, 2, "c");
    m[2].add(600, true, 0, "unanswered");
    const std::string longId(5000, 'z');
    m[2].add(700, true, 0, longId);
    m[0].add(710, false, 2, longId);
    QCOMPARE(m[0].id(0), std::string_view("a"));
    QCOMPARE(m[2].id(3), std::string_view(longId));
    const std::vector<sync::MessagePair> p = load::ClockCorrector::pairMessages(tl, m);
    auto t = [](const sync::MessagePair &x) {
        return std::make_tuple(x.sendWorker, x.sendLocal, x.recvWorker, x.recvLocal);
    };
    QCOMPARE(p.size(), size_t(5));
    QCOMPARE(t(p[0]), std::make_tuple(0, int64_t(100), 1, int64_t(150)));
    QCOMPARE(t(p[1]), std::make_tuple(0, int64_t(200), 1, int64_t(250)));
    QCOMPARE(t(p[2]), std::make_tuple(0, int64_t(450), 2, int64_t(500)));
    QCOMPARE(t(p[3]), std::make_tuple(2, int64_t(20), 1, int64_t(30)));
    QCOMPARE(t(p[4]), std::make_tuple(2, int64_t(700), 0, int64_t(710)));
}

// The pairing rule checked against a direct reading of it (a map by id string), on random
// records: ids short and long (inline in the pairing's keys, or hashed — several long ids of one
// length, which share everything but their bytes), repeated sends and receives, both ends on one
// worker, several threads per worker and some records on threads the worker does not have
// (pairs for the engine without an arrow). Pairs and links must equal the rule's exactly, in
// their documented orders, from both the copying and the consuming call.
void TstClockCorrector::pairingMatchesTheRuleOnRandomRecords()
{
    for (uint64_t seed : {1u, 2u, 3u}) {
        std::mt19937_64 rng(seed);
        const size_t workers = 5 + seed;
        Timeline tl;
        tl.workers.resize(workers);
        for (size_t w = 0; w < workers; ++w)
            tl.workers[w].tracks.resize(1 + w % 3);
        std::vector<std::string> ids;
        for (int i = 0; i < 3000; ++i) {
            switch (i % 4) {
            case 0:
                ids.push_back("g-" + std::to_string(i)); // short
                break;
            case 1:
                ids.push_back(std::string(15, 'a' + char(i % 26)) + std::to_string(i % 10)); // 16
                break;
            case 2:
                ids.push_back("x" + std::to_string(i)); // short, different length
                break;
            default:
                ids.push_back(std::string(40 + i % 3, 'q') + std::to_string(i)); // long
            }
        }
        ids.push_back(""); // the empty id is an id too
        std::vector<load::MessageLog> m(workers);
        struct Rec
        {
            size_t worker, index;
            int64_t t;
            bool send;
            uint32_t track;
        };
        std::map<std::string, std::vector<Rec>> byId; // records per id, in (worker, index) order
        std::vector<std::vector<std::pair<std::string, Rec>>> perWorker(workers);
        for (int r = 0; r < 20000; ++r) {
            const size_t w = rng() % workers;
            const std::string &id = ids[rng() % ids.size()];
            const uint32_t track = uint32_t(rng() % (tl.workers[w].tracks.size() + 1));
            const Rec rec{w, m[w].size(), int64_t(rng() % 1'000'000), (rng() & 1) != 0, track};
            m[w].add(rec.t, rec.send, 0, id, track);
            perWorker[w].push_back({id, rec});
        }
        for (size_t w = 0; w < workers; ++w)
            for (const auto &[id, rec] : perWorker[w])
                byId[id].push_back(rec);
        std::vector<sync::MessagePair> wantPairs;
        std::vector<MessageLink> wantLinks;
        for (const auto &[id, recs] : byId) {
            const Rec *send = nullptr, *recv = nullptr;
            for (const Rec &r : recs)
                (r.send ? send : recv) = &r;
            if (!send || !recv)
                continue;
            if (send->worker != recv->worker)
                wantPairs.push_back({int(send->worker), send->t, int(recv->worker), recv->t});
            if (send->track < tl.workers[send->worker].tracks.size() &&
                recv->track < tl.workers[recv->worker].tracks.size()) {
                MessageLink l;
                l.fromLocal = send->t;
                l.toLocal = recv->t;
                l.fromWorker = uint32_t(send->worker);
                l.toWorker = uint32_t(recv->worker);
                l.fromTrack = send->track;
                l.toTrack = recv->track;
                wantLinks.push_back(l);
            }
        }
        auto tuple = [](const sync::MessagePair &x) {
            return std::make_tuple(x.sendWorker, x.sendLocal, x.recvWorker, x.recvLocal);
        };
        std::sort(wantPairs.begin(), wantPairs.end(),
                  [&](const auto &a, const auto &b) { return tuple(a) < tuple(b); });
        std::sort(wantLinks.begin(), wantLinks.end(), MessageLink::lessByPair);
        QVERIFY(wantPairs.size() > 500 && wantLinks.size() > 500);
        QVERIFY(wantLinks.size() != wantPairs.size()); // both kinds of difference occur

        auto check = [&](const std::vector<sync::MessagePair> &pairs,
                         const std::vector<MessageLink> &links) {
            QCOMPARE(pairs.size(), wantPairs.size());
            for (size_t i = 0; i < pairs.size(); ++i)
                QCOMPARE(tuple(pairs[i]), tuple(wantPairs[i]));
            QCOMPARE(links.size(), wantLinks.size());
            for (size_t i = 0; i < links.size(); ++i) {
                const MessageLink &a = links[i], &b = wantLinks[i];
                QVERIFY(!MessageLink::lessByPair(a, b) && !MessageLink::lessByPair(b, a));
                QCOMPARE(int(a.kind), int(MessageLink::Message));
            }
        };
        LinkTable links;
        const std::vector<sync::MessagePair> pairs =
            load::ClockCorrector::pairMessages(tl, m, &links);
        check(pairs, links.toVector());
        QCOMPARE(load::ClockCorrector::links(tl, m).size(), wantLinks.size());
        LinkTable links2;
        const std::vector<sync::MessagePair> pairs2 =
            load::ClockCorrector::pairMessages(tl, std::move(m), &links2);
        check(pairs2, links2.toVector());
    }
}

QTEST_APPLESS_MAIN(TstClockCorrector)
#include "tst_clockcorrector.moc"
