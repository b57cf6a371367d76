// Diagnoser (report/diagnosis.h) on hand-made jobs with hand-computed expectations: steps,
// each collective's last arriver, blame = (n − 1) × its lead, waits, the culprit and its
// what-if, the critical path; the straggler rule leaves waits to blame; CollectiveNames and
// the step-name fold; instances paired by process group and sequence number.
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"
#include "timeline/model/collectivenames.h"
#include "timeline/report/diagnosis.h"
#include "timeline/report/diagnosisexporter.h"
#include "timeline/report/rankoutliers.h"
#include "timeline/report/stats.h"

#include <QtTest>

#include <sstream>

using namespace syncline;

namespace {

constexpr int64_t kMs = 1000000;

// `steps` steps of 20 ms on every rank (same host and anchor: raw = corrected, no bounds); in
// each, `forward` lasts forwardMs[rank], then `all_reduce` until 15.1 ms, the step ends at
// 15.2 ms. So the last rank to finish its forward arrives last at every all_reduce.
std::shared_ptr<Timeline> makeJob(QTemporaryDir &dir, const std::vector<double> &forwardMs,
                                  int steps, const std::string &collective = "all_reduce")
{
    const std::string d = dir.path().toStdString();
    for (size_t r = 0; r < forwardMs.size(); ++r) {
        std::string log = testlogs::header(int(r));
        for (int k = 0; k < steps; ++k) {
            const int64_t s = 100 * kMs + k * 20 * kMs;
            const int64_t f = s + int64_t(forwardMs[r] * double(kMs));
            log += testlogs::begin(s, 1, "step") + testlogs::begin(s, 1, "forward") +
                   testlogs::end(f, 1, "forward") + testlogs::begin(f, 1, collective) +
                   testlogs::end(s + 15100000, 1, collective) +
                   testlogs::end(s + 15200000, 1, "step");
        }
        testlogs::write(d + "/w." + std::to_string(r) + ".log", log);
    }
    LoadOptions o;
    o.paths = {d};
    o.correctClocks = false;
    return JobLoader::load(o).timeline;
}

const DiagnosisRank &rank(const Diagnosis &d, int r)
{
    for (const DiagnosisRank &x : d.ranks)
        if (x.rank == r)
            return x;
    qFatal("no rank %d", r);
}

} // namespace

class TstDiagnosis : public QObject
{
    Q_OBJECT

private slots:
    void threeRanksExactBlame();
    void culpritWhatIfAndVictims();
    void balancedJobBlamesNobody();
    void stragglerRuleLeavesWaitsToBlame();
    void rangeSelectsSteps();
    void threadsDoNotChangeTheResult();
    void jsonContract();
    void collectiveNames_data();
    void collectiveNames();
    void stepKey();
    void instancesPairBySequenceNumber();
};

void TstDiagnosis::threeRanksExactBlame()
{
    QTemporaryDir dir;
    auto tl = makeJob(dir, {10, 10, 15}, 10);
    QVERIFY(tl);
    const Diagnosis d = Diagnoser::run(*tl);
    QCOMPARE(d.stepName, std::string("step"));
    QCOMPARE(d.steps.size(), size_t(10));
    QCOMPARE(d.instances, int64_t(10));
    QCOMPARE(d.decided, int64_t(10));
    QCOMPARE(d.undecidedCount, int64_t(0));
    // Rank 2 arrives 5 ms after the others at every all_reduce: 2 × 5 ms per instance.
    QCOMPARE(rank(d, 2).blameNs, 10 * 2 * 5 * kMs);
    QCOMPARE(rank(d, 2).timesLast, int64_t(10));
    QCOMPARE(rank(d, 0).blameNs, int64_t(0));
    QCOMPARE(rank(d, 0).waitNs, 10 * 5 * kMs);
    QCOMPARE(rank(d, 1).waitNs, 10 * 5 * kMs);
    QCOMPARE(rank(d, 2).waitNs, int64_t(0));
    QCOMPARE(d.culprits.size(), size_t(1));
    QCOMPARE(d.ranks[d.culprits[0]].rank, 2);
    // Victims: the ranks that waited, never the culprit.
    QCOMPARE(d.victims.size(), size_t(2));
    QCOMPARE(d.ranks[d.victims[0]].rank, 0);
    QCOMPARE(d.ranks[d.victims[1]].rank, 1);
    // Heat map cells: own step duration and wait.
    QCOMPARE(d.cellDuration(3, 1), float(15.2 * kMs));
    QCOMPARE(d.cellWait(3, 0), float(5 * kMs));
    QCOMPARE(d.cellWait(3, 2), 0.0f);
    QCOMPARE(d.lastArrivals[2].size(), size_t(10));
    QVERIFY(d.lastArrivals[0].empty());
}

void TstDiagnosis::culpritWhatIfAndVictims()
{
    QTemporaryDir dir;
    // Rank 4 slow (15 ms forward), rank 3 fast (6 ms): rank 3 waits longest (9 ms a step).
    auto tl = makeJob(dir, {10, 10, 10, 6, 15}, 8);
    QVERIFY(tl);
    const Diagnosis d = Diagnoser::run(*tl);
    QCOMPARE(d.stepP50Ns, int64_t(15200000));
    const DiagnosisRank &slow = rank(d, 4);
    QCOMPARE(slow.blameNs, 8 * 4 * 5 * kMs);
    QVERIFY(slow.culprit);
    QVERIFY(slow.hasWhatIf);
    // Its forward as the others' median (10 ms): every all_reduce, so every step, 5 ms earlier.
    QCOMPARE(slow.whatIfStepP50Ns, int64_t(10200000));
    QCOMPARE(slow.savedNsPerStep, 5 * kMs);
    QCOMPARE(slow.savedNsTotal, 8 * 5 * kMs);
    QCOMPARE(d.ranks[d.victims[0]].rank, 3);
    QCOMPARE(rank(d, 3).waitNs, 8 * 9 * kMs);
    QVERIFY(!rank(d, 3).culprit);
    // Critical path per step: rank 4's forward (15 ms), the all_reduce after the last arrival
    // (0.1 ms), the tail on the rank that ended last (rank 0, first of the equal ends: 0.1 ms).
    QCOMPARE(d.criticalTotalNs, 8 * 15200000LL);
    QCOMPARE(d.criticalByRank.front().rank, 4);
    QCOMPARE(d.criticalByRank.front().ns, 8 * 15100000LL);
    QCOMPARE(d.criticalByName.front().name, std::string("forward"));
    QCOMPARE(d.criticalByName.front().ns, 8 * 15 * kMs);
    QCOMPARE(d.steps[0].whatIfEndNs - d.steps[0].beginNs, int64_t(10200000));
}

void TstDiagnosis::balancedJobBlamesNobody()
{
    QTemporaryDir dir;
    auto tl = makeJob(dir, {10, 10, 10, 10}, 6);
    QVERIFY(tl);
    const Diagnosis d = Diagnoser::run(*tl);
    QVERIFY(d.culprits.empty());
    for (const DiagnosisRank &r : d.ranks)
        QCOMPARE(r.blameNs, int64_t(0)); // equal arrivals: no lead, no blame
}

void TstDiagnosis::stragglerRuleLeavesWaitsToBlame()
{
    QTemporaryDir dir;
    auto tl = makeJob(dir, {10, 10, 10, 6, 15}, 8);
    QVERIFY(tl);
    const std::vector<StatsRow> rows = Stats::compute(*tl);
    const uint32_t allReduce = tl->names.find("all_reduce");
    const uint32_t forward = tl->names.find("forward");
    QVERIFY(RankOutliers::isWait(*tl, allReduce));
    QVERIFY(!RankOutliers::isWait(*tl, forward));
    // The mean rule alone calls rank 3 (the one that waited longest) an all_reduce straggler.
    bool victimBlamed = false;
    for (const RankStragglers &s : RankOutliers::compute(rows))
        if (s.nameId == allReduce)
            victimBlamed = s.slow.size() == 1 && s.slow[0].first == 3;
    QVERIFY(victimBlamed);
    // With the timeline, waits are left to blame: only forward's rank 4 is a straggler.
    const auto judged = RankOutliers::compute(rows, tl.get());
    QCOMPARE(judged.size(), size_t(1));
    QCOMPARE(judged[0].nameId, forward);
    QCOMPARE(judged[0].slow.size(), size_t(1));
    QCOMPARE(judged[0].slow[0].first, 4);
}

void TstDiagnosis::rangeSelectsSteps()
{
    QTemporaryDir dir;
    auto tl = makeJob(dir, {10, 10, 15}, 10);
    QVERIFY(tl);
    DiagnoseQuery q;
    q.useRange = true; // steps 2..4 begin inside
    q.beginNs = tl->originNs(ClockMode::Corrected) + 40 * kMs;
    q.endNs = tl->originNs(ClockMode::Corrected) + 85 * kMs;
    const Diagnosis d = Diagnoser::run(*tl, q);
    QCOMPARE(d.instances, int64_t(3));
    QCOMPARE(rank(d, 2).blameNs, 3 * 2 * 5 * kMs);
    QCOMPARE(rank(d, 2).savedNsTotal, 3 * 5 * kMs);
}

void TstDiagnosis::threadsDoNotChangeTheResult()
{
    QTemporaryDir dir;
    std::vector<double> forward;
    for (int r = 0; r < 24; ++r)
        forward.push_back(8 + (r * 7) % 5 +
                          (r == 17 ? 2 : 0)); // rank 17 slowest (14 ms), others 8..12
    auto tl = makeJob(dir, forward, 30);
    QVERIFY(tl);
    std::string text[3];
    const size_t threads[3] = {1, 3, 8};
    for (int i = 0; i < 3; ++i) {
        DiagnoseQuery q;
        q.threads = threads[i];
        std::ostringstream out;
        DiagnosisExporter::writeJson(*tl, Diagnoser::run(*tl, q), out);
        text[i] = out.str();
    }
    QCOMPARE(text[1], text[0]);
    QCOMPARE(text[2], text[0]);
    QVERIFY(text[0].find("\"culprits\": [\n  {\"rank\": 17,") != std::string::npos);
}

void TstDiagnosis::jsonContract()
{
    QTemporaryDir dir;
    auto tl = makeJob(dir, {10, 10, 15}, 4, "allreduce");
    QVERIFY(tl);
    std::ostringstream out;
    DiagnosisExporter::writeJson(*tl, Diagnoser::run(*tl), out);
    const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(out.str()));
    QVERIFY2(doc.isObject(), out.str().c_str());
    const QJsonObject o = doc.object();
    QCOMPARE(o["version"].toInt(), 1);
    QCOMPARE(o["steps"]["name"].toString(), QString("step"));
    QCOMPARE(o["steps"]["count"].toInt(), 4);
    QCOMPARE(o["steps"]["p50_ns"].toDouble(), 15200000.0);
    const QJsonArray culprits = o["culprits"].toArray();
    QCOMPARE(culprits.size(), 1);
    const QJsonObject c = culprits[0].toObject();
    QCOMPARE(c["rank"].toInt(), 2);
    QCOMPARE(c["blame_ns"].toDouble(), 4 * 2 * 5e6);
    QCOMPARE(c["times_last"].toInt(), 4);
    QCOMPARE(c["instances"].toInt(), 4);
    QCOMPARE(c["what_if_step_p50_ns"].toDouble(), 10200000.0);
    QCOMPARE(c["saved_ns_per_step"].toDouble(), 5e6);
    QCOMPARE(o["victims"].toArray().size(), 2);
    QCOMPARE(o["victims"][0]["wait_ns"].toDouble(), 4 * 5e6);
    QVERIFY(o["critical_path"]["by_rank"].isArray());
    QCOMPARE(o["critical_path"]["by_name"][0]["name"].toString(), QString("forward"));
    QCOMPARE(o["undecided"]["count"].toInt(), 0);
}

void TstDiagnosis::collectiveNames_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("kind");
    const int op = int(CollectiveNames::Kind::Operation), k = int(CollectiveNames::Kind::Kernel);
    QTest::newRow("all_reduce") << "all_reduce" << op;
    QTest::newRow("allreduce") << "allreduce" << op;
    QTest::newRow("ddp") << "ddp_allreduce" << op;
    QTest::newRow("gloo") << "gloo:all_reduce" << op;
    QTest::newRow("c10d dispatcher op") << "c10d::allreduce_" << 0;
    QTest::newRow("aten") << "aten::broadcast_tensors" << 0;
    QTest::newRow("allgather") << "all_gather_into_tensor" << op;
    QTest::newRow("reduce_scatter") << "reduce_scatter_tensor" << op;
    QTest::newRow("broadcast") << "broadcast" << op;
    QTest::newRow("barrier") << "barrier" << op;
    QTest::newRow("a2a") << "all_to_all_single" << op;
    QTest::newRow("kernel") << "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)" << k;
    QTest::newRow("devkernel") << "ncclDevKernel_AllGather_RING_LL(ncclDevComm*)" << k;
    QTest::newRow("send") << "send" << 0;
    QTest::newRow("sendrecv kernel")
        << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
        << 0;
    QTest::newRow("send kernel") << "ncclDevKernel_Send(ncclDevComm*)" << 0;
    QTest::newRow("reduce alone") << "reduce" << 0;
    QTest::newRow("forward") << "forward" << 0;
    QTest::newRow("record_param_comms") << "record_param_comms" << 0;
}

void TstDiagnosis::collectiveNames()
{
    QFETCH(QString, name);
    QFETCH(int, kind);
    QCOMPARE(int(CollectiveNames::classify(name.toStdString())), kind);
}

void TstDiagnosis::stepKey()
{
    QCOMPARE(Diagnoser::stepKey("ProfilerStep#12"), std::string_view("ProfilerStep"));
    QCOMPARE(Diagnoser::stepKey("step"), std::string_view("step"));
    QCOMPARE(Diagnoser::stepKey("a#b"), std::string_view("a#b"));
    QCOMPARE(Diagnoser::stepKey("#12"), std::string_view("#12"));
    QCOMPARE(Diagnoser::stepKey("x#"), std::string_view("x#"));
}

// Rank 2 (forward 15 ms, the others 10 ms) recorded only steps 3..9, its all_reduce carrying
// syncline.torch's {"group", "seq"}: the instances pair by seq, so rank 2 is last at the 7 it
// shares, 5 ms after the others each time — not at the k-th all_reduce of the others' steps
// 0..6 (which the k-th rule would pair it with, 65 ms apart).
void TstDiagnosis::instancesPairBySequenceNumber()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    const double forwardMs[] = {10, 10, 15};
    for (int r = 0; r < 3; ++r) {
        std::string log = testlogs::header(r);
        for (int k = r == 2 ? 3 : 0; k < 10; ++k) {
            const int64_t s = 100 * kMs + k * 20 * kMs;
            const int64_t f = s + int64_t(forwardMs[r] * double(kMs));
            log += testlogs::begin(s, 1, "step") + testlogs::begin(s, 1, "forward") +
                   testlogs::end(f, 1, "forward") +
                   testlogs::begin(f, 1, "all_reduce",
                                   "{\"group\": \"world\", \"seq\": " + std::to_string(k) + "}") +
                   testlogs::end(s + 15100000, 1, "all_reduce") +
                   testlogs::end(s + 15200000, 1, "step");
        }
        testlogs::write(d + "/w." + std::to_string(r) + ".log", log);
    }
    LoadOptions o;
    o.paths = {d};
    o.correctClocks = false;
    const auto tl = JobLoader::load(o).timeline;
    QVERIFY(tl);
    const Diagnosis dg = Diagnoser::run(*tl);
    QCOMPARE(rank(dg, 2).timesLast, int64_t(7));
    QCOMPARE(rank(dg, 2).blameNs, 7 * 2 * 5 * kMs);
    QCOMPARE(rank(dg, 2).waitNs, int64_t(0));
    QCOMPARE(rank(dg, 0).waitNs, 7 * 5 * kMs);
}

QTEST_APPLESS_MAIN(TstDiagnosis)
#include "tst_diagnosis.moc"
