// DiagnosisPart (report/diagnosisparts.h): a job diagnosed from its workers' parts — each log
// loaded alone with the split's clocks (JobLoader::splitClocks), its part encoded and decoded,
// the parts put together (DiagnosisPart::timeline, JobLoader::splitKinds) — gives the very
// document of the whole job's load: on a job whose ranks use their names in different orders
// (the name ids and the detected step's tie-break), with a straggler, a range and a step
// name; a step key outermost on some ranks and nested on another (that part does not hold it,
// and holds it once made with the step's name); collectives paired by process group and
// sequence, one failed (only those args travel); the encoding round trips; every truncation,
// flipped bytes and garbage are refused or decoded safely, never a crash.
#include "tests/timeline/testlogs.h"

#include "timeline/load/jobloader.h"
#include "timeline/report/diagnosis.h"
#include "timeline/report/diagnosisexporter.h"
#include "timeline/report/diagnosisparts.h"

#include <QtTest>

#include <sstream>

using namespace syncline;

namespace {

constexpr int64_t kMs = 1000000;

// `ranks` ranks, 12 steps of 20 ms. Rank r's compute is `forward` (two `matmul` in it) then
// `backward` (rank 2's forward 4 ms longer: the straggler), then `all_reduce`; rank 1 first records a `warmup` and
// `backward` before `forward` (its names in another order), rank 0 has an outermost `eval`
// twice (a step candidate that loses). With `nestedOn` ≥ 0, that rank's steps lie inside an
// outermost `epoch`.
// With `groups`, each all_reduce carries a process group and sequence number (rank 1's count
// from 1, so instances pair by sequence, not by occurrence), another arg that is read by
// nothing, and rank 0's sixth says `failed`.
void writeJob(const std::string &dir, int ranks, int nestedOn = -1, bool groups = false)
{
    for (int r = 0; r < ranks; ++r) {
        std::string log = testlogs::header(r);
        int64_t t = 50 * kMs;
        if (r == 1)
            log += testlogs::complete(10 * kMs, kMs, 1, "warmup") +
                   testlogs::complete(12 * kMs, kMs, 1, "backward");
        if (r == 0)
            log += testlogs::complete(20 * kMs, kMs, 1, "eval") +
                   testlogs::complete(30 * kMs, kMs, 1, "eval");
        if (r == nestedOn)
            log += testlogs::begin(t - kMs, 1, "epoch");
        for (int k = 0; k < 12; ++k) {
            const int64_t s = t + k * 20 * kMs;
            const int64_t f = s + (r == 2 ? 7 : 3) * kMs;
            const int64_t b = f + 4 * kMs;
            log += testlogs::begin(s, 1, "step") + testlogs::begin(s, 1, "forward") +
                   testlogs::complete(s, kMs, 1, "matmul") +
                   testlogs::complete(s + kMs, kMs, 1, "matmul") + testlogs::end(f, 1, "forward") +
                   testlogs::complete(f, b - f, 1, "backward") +
                   testlogs::begin(
                       b, 1, "all_reduce",
                       !groups ? std::string()
                               : "{\"group\":\"pg0\",\"seq\":" + std::to_string(k + (r == 1)) +
                                     ",\"bytes\":" + std::to_string(1000 + k) +
                                     (r == 0 && k == 5 ? ",\"failed\":true}" : "}")) +
                   testlogs::end(s + 15 * kMs, 1, "all_reduce") +
                   testlogs::end(s + 16 * kMs, 1, "step");
        }
        if (r == nestedOn)
            log += testlogs::end(t + 12 * 20 * kMs, 1, "epoch");
        testlogs::write(dir + "/timer_events." + std::to_string(r) + ".log", log);
    }
}

std::string document(const Timeline &tl, const DiagnoseQuery &q)
{
    std::ostringstream out;
    DiagnosisExporter::writeJson(tl, Diagnoser::run(tl, q), out);
    return out.str();
}

// The whole job's document, as `syncline diagnose --json` makes it.
std::string whole(const std::string &dir, DiagnoseQuery q, int64_t rangeBegin = -1,
                  int64_t rangeEnd = -1)
{
    LoadOptions o;
    o.paths = {dir};
    const LoadResult r = JobLoader::load(o);
    if (!r.timeline)
        qFatal("%s", r.fatalError.c_str());
    if (rangeBegin >= 0) {
        q.useRange = true;
        q.beginNs = r.timeline->originNs(q.mode) + rangeBegin;
        q.endNs = r.timeline->originNs(q.mode) + rangeEnd;
    }
    return document(*r.timeline, q);
}

// The job's parts, encoded, as syncline.dask's tasks make them (`step` for every log).
std::vector<std::string> parts(const std::string &dir, const std::string &step = {})
{
    const SplitInputs in = JobLoader::splitInputs({dir}, RankSet());
    std::vector<std::string> inputs;
    for (const std::string &log : in.logs) {
        std::string why;
        inputs.push_back(JobLoader::clockInputs(log, in.configPath, in.configText, {}, &why));
    }
    const SplitClocks clocks = JobLoader::splitClocks(LoadOptions(), in.configPath,
                                                      in.configText, inputs);
    if (!clocks.fatalError.empty())
        qFatal("%s", clocks.fatalError.c_str());
    std::vector<std::string> out;
    for (const SplitWorker &w : clocks.workers) {
        LoadOptions o;
        o.paths = {w.log};
        o.clockPlan = w.clocks;
        o.splitConfig = std::make_pair(in.configPath, in.configText);
        const LoadResult r = JobLoader::load(o);
        if (!r.timeline || r.timeline->workers.size() != 1)
            qFatal("%s: %s", w.log.c_str(), r.fatalError.c_str());
        r.timeline->workers[0].info.rank = w.rank;
        out.push_back(DiagnosisPart::of(*r.timeline, 0, step).encode());
    }
    return out;
}

std::vector<DiagnosisPart> decoded(const std::vector<std::string> &bytes)
{
    std::vector<DiagnosisPart> out;
    for (const std::string &b : bytes) {
        std::string why;
        std::optional<DiagnosisPart> p = DiagnosisPart::decode(b, &why);
        if (!p)
            qFatal("%s", why.c_str());
        out.push_back(std::move(*p));
    }
    return out;
}

std::shared_ptr<Timeline> joined(std::vector<DiagnosisPart> &parts)
{
    std::shared_ptr<Timeline> tl = DiagnosisPart::timeline(parts);
    JobLoader::splitKinds(*tl, {}, {}, {});
    return tl;
}

} // namespace

class TstDiagnosisParts : public QObject
{
    Q_OBJECT

private slots:
    void partsGiveTheWholeJobsDocument();
    void collectivesByGroupAndFailed();
    void stepNestedOnOneRank();
    void roundTrip();
    void damagedPartsAreRefused();
};

void TstDiagnosisParts::partsGiveTheWholeJobsDocument()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    writeJob(d, 4);
    std::vector<DiagnosisPart> all = decoded(parts(d));
    for (const DiagnosisPart &p : all)
        QVERIFY(p.holdsStep("step"));
    // Rank 1's names come in another order: the job's ids are the full load's.
    QCOMPARE(all[1].names[1], std::string("warmup"));
    std::shared_ptr<Timeline> tl = joined(all);
    DiagnoseQuery q;
    q.cells = false;
    const std::string expected = whole(d, q);
    QCOMPARE(document(*tl, q), expected);
    QVERIFY(expected.find("\"name\": \"step\"") != std::string::npos);
    QVERIFY(expected.find("\"culprits\": [\n  {\"rank\": 2,") != std::string::npos);
    // The raw clock, a range, a step name (one that has children, one that has none).
    q.mode = ClockMode::Raw;
    QCOMPARE(document(*tl, q), whole(d, q));
    q.mode = ClockMode::Corrected;
    q.useRange = true;
    q.beginNs = tl->originNs(q.mode) + 100 * kMs;
    q.endNs = tl->originNs(q.mode) + 180 * kMs;
    DiagnoseQuery plain;
    plain.cells = false;
    QCOMPARE(document(*tl, q), whole(d, plain, 100 * kMs, 180 * kMs));
    for (const std::string step : {"forward", "backward", "eval"}) {
        std::vector<DiagnosisPart> named = decoded(parts(d, step));
        DiagnoseQuery s;
        s.cells = false;
        s.stepName = step;
        QCOMPARE(document(*joined(named), s), whole(d, s));
    }
    // What a part leaves out: the step's grandchildren (the matmuls) unless a step name makes
    // them children.
    const uint32_t matmul = tl->names.find("matmul");
    QVERIFY(matmul != UINT32_MAX);
    for (const Worker &w : tl->workers)
        for (const EventTrack &t : w.tracks)
            QVERIFY(std::find(t.nameId.begin(), t.nameId.end(), matmul) == t.nameId.end());
}

void TstDiagnosisParts::collectivesByGroupAndFailed()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    writeJob(d, 3, -1, true);
    std::vector<DiagnosisPart> all = decoded(parts(d));
    // Only the args CollectiveInstances reads travel: every one names its group here.
    QCOMPARE(all[0].args.size(), size_t(12));
    DiagnoseQuery q;
    q.cells = false;
    const std::string expected = whole(d, q);
    QCOMPARE(document(*joined(all), q), expected);
    // Paired by sequence: rank 1's k-th is the others' (k+1)-th, so it takes part in 11 (its
    // last is alone) and waits long; rank 0's failed one is none of its instances.
    QVERIFY(expected.find("\"collectives\": {\"names\": [\"all_reduce\"], \"instances\": 12,") !=
            std::string::npos);
    QVERIFY(expected.find("{\"rank\": 0, \"blame_ns\": 0, \"times_last\": 0, \"wait_ns\": "
                          "44000000, \"instances\": 11,") != std::string::npos);
    QVERIFY(expected.find("{\"rank\": 1, \"blame_ns\": 0, \"times_last\": 0, \"wait_ns\": "
                          "264000000, \"instances\": 11,") != std::string::npos);
}

void TstDiagnosisParts::stepNestedOnOneRank()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    writeJob(d, 3, 1); // rank 1's steps inside an `epoch`
    std::vector<std::string> bytes = parts(d);
    std::vector<DiagnosisPart> all = decoded(bytes);
    QVERIFY(all[0].holdsStep("step"));
    QVERIFY(!all[1].holdsStep("step")); // outermost on ranks 0 and 2 only: detected there
    QVERIFY(all[2].holdsStep("step"));
    // Made again with the step's name, rank 1's part holds it: the whole job's document.
    bytes[1] = parts(d, "step")[1];
    std::vector<DiagnosisPart> again = decoded(bytes);
    QVERIFY(again[1].holdsStep("step"));
    DiagnoseQuery q;
    q.cells = false;
    const std::string expected = whole(d, q);
    QCOMPARE(document(*joined(again), q), expected);
    QVERIFY(expected.find("\"name\": \"step\", \"count\": 12") != std::string::npos);
}

void TstDiagnosisParts::roundTrip()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    writeJob(d, 2);
    for (const std::string &b : parts(d)) {
        std::vector<DiagnosisPart> p = decoded({b});
        QCOMPARE(p[0].encode(), b);
        QVERIFY(b.size() < 4096); // 2 × 12 steps: a few bytes an event
    }
}

void TstDiagnosisParts::damagedPartsAreRefused()
{
    QTemporaryDir dir;
    const std::string d = dir.path().toStdString();
    writeJob(d, 2);
    const std::vector<std::string> good = parts(d);
    const std::string &b = good[1];
    std::string why;
    for (size_t n = 0; n < b.size(); ++n) { // every truncation
        QVERIFY(!DiagnosisPart::decode(b.substr(0, n), &why));
        QVERIFY(!why.empty());
    }
    QVERIFY(!DiagnosisPart::decode(b + "x", &why));
    QCOMPARE(why, std::string("truncated or damaged diagnose part"));
    QVERIFY(!DiagnosisPart::decode(std::string(64, 'y'), &why));
    QCOMPARE(why, std::string("not a diagnose part (bad magic)"));
    // A flipped byte anywhere: refused, or a part that diagnoses without a crash.
    for (size_t i = 8; i < b.size(); ++i) {
        std::string bad = b;
        bad[i] = char(bad[i] ^ 0x5a);
        std::optional<DiagnosisPart> p = DiagnosisPart::decode(bad, &why);
        if (!p)
            continue;
        std::vector<DiagnosisPart> two = decoded({good[0]});
        two.push_back(std::move(*p));
        DiagnoseQuery q;
        q.cells = false;
        document(*joined(two), q);
    }
}

QTEST_APPLESS_MAIN(TstDiagnosisParts)
#include "tst_diagnosisparts.moc"
