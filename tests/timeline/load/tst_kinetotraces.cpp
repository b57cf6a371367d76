// Current PyTorch profiler (Kineto) traces through JobLoader, as every reader uses it: the real
// gzip'd trace of tests/data (hta_ns_resolution_1rank: `.pt.trace.json.gz`, 45,420 X + 2 i
// events, 23,234 flow points) loads whole from its name, from a directory and identically to its
// inflated text; a gzip cut or damaged part-way loads what precedes the damage and says where
// it stopped; a JSON file that is no trace (a number, an array of numbers, an unrelated object,
// a gzip'd one) named alone is refused with what it is, never "no records in file". The same
// trace rewritten as PyTorch 2.4+ writes it (ts relative to `baseTimeNanoseconds`, the base
// after the events, with a sub-µs part) holds every event at the very ns of the original. A
// sub-sampled pair of ranks with NCCL metadata pairs its collectives by (process group,
// seq_num); the real sub-sampled pair HTA publishes (no seq_num) is left unaligned, with why,
// rather than aligned on instances that do not correspond. Two concatenated gzip members load
// whole (the inflate buffer grows past what the trailer states).
#include "tests/common/testdata.h"
#include "tests/timeline/kinetotext.h"

#include "timeline/load/jobloader.h"

#include <QtTest>

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace syncline;
namespace fs = std::filesystem;

namespace {

constexpr size_t kEvents = 45422; // X + i of the real trace
constexpr size_t kFlows = 23234;  // s + f

std::string gzTrace()
{
    return testdata::dir() +
           "/hta_ns_resolution_1rank/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz";
}

std::string readAll(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeAll(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary) << text;
}

std::string gunzip(const std::string &path)
{
    gzFile f = gzopen(path.c_str(), "rb");
    std::string out;
    char buf[1 << 16];
    for (int n; (n = gzread(f, buf, sizeof buf)) > 0;)
        out.append(buf, size_t(n));
    gzclose(f);
    return out;
}

std::string gzipText(const std::string &text)
{
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, uLong(text.size())) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.data()));
    z.avail_in = uInt(text.size());
    z.next_out = reinterpret_cast<Bytef *>(out.data());
    z.avail_out = uInt(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

LoadResult load(const std::vector<std::string> &paths)
{
    LoadOptions o;
    o.paths = paths;
    return JobLoader::load(o);
}

size_t events(const Timeline &tl)
{
    size_t n = 0;
    for (const Worker &w : tl.workers)
        for (const EventTrack &t : w.tracks)
            n += t.count();
    return n;
}

// The first problem of `kind` whose message contains `detail`.
const LoadProblem *problem(const Timeline &tl, LoadProblem::Kind kind, const std::string &detail = {})
{
    for (const LoadProblem &p : tl.problems)
        if (p.kind == kind && p.message.find(detail) != std::string::npos)
            return &p;
    return nullptr;
}

// Every event's (track name, local start, end, name), sorted: two loads hold the same events.
std::vector<std::tuple<std::string, int64_t, int64_t, std::string>> eventList(const Timeline &tl)
{
    std::vector<std::tuple<std::string, int64_t, int64_t, std::string>> out;
    for (const Worker &w : tl.workers)
        for (const EventTrack &t : w.tracks)
            for (size_t i = 0; i < t.count(); ++i)
                out.emplace_back(t.threadName, t.localStart[i], t.localEnd[i],
                                 std::string(tl.names.name(t.nameId[i])));
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

class TestKinetoTraces : public QObject
{
    Q_OBJECT

private slots:
    void gzipLoadsEveryEventByName()
    {
        const LoadResult r = load({gzTrace()});
        QVERIFY2(r.timeline, r.fatalError.c_str());
        const Timeline &tl = *r.timeline;
        QCOMPARE(tl.workers.size(), size_t(1));
        QCOMPARE(tl.workers[0].info.rank, 0);
        QCOMPARE(events(tl), kEvents);
        QCOMPARE(tl.flows.size(), kFlows);
        for (const LoadProblem &p : tl.problems)
            QVERIFY2(p.severity == LoadProblem::Severity::Info, p.message.c_str());
    }

    // The .pt.trace.json.gz in a directory is taken (it used to be skipped without a word), and
    // holds the very events its inflated text does.
    void gzipInDirectoryEqualsInflated()
    {
        QTemporaryDir gzDir, jsonDir;
        fs::copy_file(gzTrace(), gzDir.path().toStdString() + "/rank-0.pt.trace.json.gz");
        writeAll(jsonDir.path().toStdString() + "/rank-0.pt.trace.json", gunzip(gzTrace()));
        const LoadResult a = load({gzDir.path().toStdString()});
        const LoadResult b = load({jsonDir.path().toStdString()});
        QVERIFY2(a.timeline, a.fatalError.c_str());
        QVERIFY2(b.timeline, b.fatalError.c_str());
        QCOMPARE(events(*a.timeline), kEvents);
        QVERIFY(eventList(*a.timeline) == eventList(*b.timeline));
        QCOMPARE(a.timeline->flows.size(), b.timeline->flows.size());
    }

    // Two gzip members back to back (what `cat a.gz b.gz` gives): the trailer then states only
    // the last member's length (1 KiB here, against 15 MB in all), so the buffer the text is
    // inflated into grows several times on the way; every event still loads, as from the text.
    void concatenatedGzipGrowsItsBuffer()
    {
        QTemporaryDir dir;
        const std::string text = gunzip(gzTrace());
        const size_t split = text.size() - 1024;
        const std::string path = dir.path().toStdString() + "/two-members.json.gz";
        writeAll(path, gzipText(text.substr(0, split)) + gzipText(text.substr(split)));
        const LoadResult r = load({path});
        QVERIFY2(r.timeline, r.fatalError.c_str());
        QCOMPARE(events(*r.timeline), kEvents);
        QCOMPARE(r.timeline->flows.size(), kFlows);
        QVERIFY(!problem(*r.timeline, LoadProblem::Kind::TruncatedGzip));
        QVERIFY(eventList(*r.timeline) == eventList(*load({gzTrace()}).timeline));
    }

    // Cut at 60 %: the events of the inflated prefix load, and the problem names the compressed
    // byte where the stream stopped.
    void truncatedGzipLoadsWhatItCanAndSaysWhere()
    {
        QTemporaryDir dir;
        const std::string whole = readAll(gzTrace());
        const std::string cut = dir.path().toStdString() + "/cut.pt.trace.json.gz";
        writeAll(cut, whole.substr(0, whole.size() * 6 / 10));
        const LoadResult r = load({cut});
        QVERIFY2(r.timeline, r.fatalError.c_str());
        const size_t n = events(*r.timeline);
        QVERIFY2(n > kEvents / 3 && n < kEvents, std::to_string(n).c_str());
        const LoadProblem *p = problem(*r.timeline, LoadProblem::Kind::TruncatedGzip);
        QVERIFY(p);
        QCOMPARE(p->severity, LoadProblem::Severity::Warning);
        QVERIFY2(p->message.find("file cut at compressed byte " +
                                 std::to_string(whole.size() * 6 / 10)) != std::string::npos,
                 p->message.c_str());
        QVERIFY(problem(*r.timeline, LoadProblem::Kind::TruncatedJson));
    }

    void corruptGzipLoadsWhatPrecedesTheDamage()
    {
        QTemporaryDir dir;
        std::string bytes = readAll(gzTrace());
        for (size_t i = bytes.size() / 2; i < bytes.size() / 2 + 64; ++i)
            bytes[i] = char(~bytes[i]);
        const std::string bad = dir.path().toStdString() + "/bad.json.gz";
        writeAll(bad, bytes);
        const LoadResult r = load({bad});
        QVERIFY2(r.timeline, r.fatalError.c_str());
        const size_t n = events(*r.timeline);
        QVERIFY2(n > 0 && n < kEvents, std::to_string(n).c_str());
        const LoadProblem *p =
            problem(*r.timeline, LoadProblem::Kind::TruncatedGzip, "corrupt gzip data at compressed byte");
        QVERIFY(p);
    }

    // ts relative to baseTimeNanoseconds: every event at the original's wall time, to the ns.
    void baseTimeNanosecondsIsExactToTheNs()
    {
        QTemporaryDir dir;
        const std::string original = gunzip(gzTrace());
        const std::string orig = dir.path().toStdString() + "/orig.json";
        const std::string rel = dir.path().toStdString() + "/rel.json";
        writeAll(orig, original);
        constexpr int64_t kBase = 1712195000000000123; // a sub-µs part: ns must survive
        const std::string rebased = kinetotext::rebase(original, kBase);
        QVERIFY(rebased.find("\"ts\": 495406752.674") != std::string::npos); // relative now
        writeAll(rel, rebased);
        const LoadResult a = load({orig});
        const LoadResult b = load({rel});
        QVERIFY2(a.timeline, a.fatalError.c_str());
        QVERIFY2(b.timeline, b.fatalError.c_str());
        const auto ea = eventList(*a.timeline), eb = eventList(*b.timeline);
        QCOMPARE(ea.size(), kEvents);
        QVERIFY(ea == eb);
        QCOMPARE(b.timeline->flows.size(), kFlows);
        for (size_t i = 0; i < kFlows; ++i)
            QCOMPARE(b.timeline->flows[i].localNs, a.timeline->flows[i].localNs);
        QCOMPARE(b.timeline->workers[0].info.firstLocalNs, a.timeline->workers[0].info.firstLocalNs);
    }

    // 8 ranks of the real trace (distributedInfo.rank 0..7), rank 5's clock 2.5 ms ahead, no
    // sync samples: aligned on the NCCL collectives with no option, within 10 µs, with a note;
    // --no-correct (correctClocks false) leaves the 2.5 ms.
    void eightRanksAlignOnCollectivesByDefault()
    {
        QTemporaryDir dir;
        const std::string original = gunzip(gzTrace());
        const std::string from = "\"rank\": 0, \"world_size\": 1";
        QVERIFY(original.find(from) != std::string::npos);
        constexpr int64_t kAhead = 2'500'000;
        for (int r = 0; r < 8; ++r) {
            std::string t = original;
            t.replace(t.find(from), from.size(),
                      "\"rank\": " + std::to_string(r) + ", \"world_size\": 8");
            if (r == 5)
                t = kinetotext::shiftAll(t, kAhead);
            writeAll(dir.path().toStdString() + "/rank" + std::to_string(r) + ".pt.trace.json", t);
        }
        for (const bool correct : {true, false}) {
            LoadOptions o;
            o.paths = {dir.path().toStdString()};
            o.correctClocks = correct;
            const LoadResult r = JobLoader::load(o);
            QVERIFY2(r.timeline, r.fatalError.c_str());
            const Timeline &tl = *r.timeline;
            QCOMPARE(tl.workers.size(), size_t(8));
            // The same event (the first of its first track) on each rank, corrected.
            auto first = [&](size_t w) { return tl.startNs(w, 0, 0, ClockMode::Corrected); };
            int64_t worst = 0;
            for (size_t w = 0; w < 8; ++w) {
                QCOMPARE(tl.workers[w].info.rank, int(w));
                worst = std::max(worst, std::abs(first(w) - first(0)));
            }
            const bool noted = std::any_of(tl.clockNotes.begin(), tl.clockNotes.end(),
                                           [](const std::string &n) {
                                               return n.find("aligned on") != std::string::npos &&
                                                      n.find("no sync samples") != std::string::npos;
                                           });
            qInfo("correct=%d: worst rank-to-rank offset %lld ns", int(correct), (long long)worst);
            if (correct) {
                QVERIFY2(worst <= 10'000, std::to_string(worst).c_str());
                QCOMPARE(tl.workers[5].clock.method, sync::ClockMethod::Collectives);
                QVERIFY(noted);
            } else {
                QCOMPARE(worst, kAhead);
                QVERIFY(!noted);
            }
        }
    }

    // A sub-sampled pair of ranks: the real trace with the NCCL metadata current PyTorch writes
    // on each collective ("Process Group Name", "seq_num"), rank 1's profiler window starting
    // later (everything before rank 0's 4th nccl:all_reduce gone: 3 all-reduces and 2
    // broadcasts fewer) and its clock 2.5 ms ahead. Paired by (process group, seq_num), rank 1's
    // first all-reduce is rank 0's 4th and the ranks line up within 10 µs with no option;
    // without the metadata the k-th rule pairs rank 1's first with rank 0's first and cannot.
    void subSampledPairAlignsBySeqNum()
    {
        const std::string original = gunzip(gzTrace());
        const std::string from = "\"rank\": 0, \"world_size\": 1";
        QVERIFY(original.find(from) != std::string::npos);
        auto isColl = [](const std::string &e) {
            return e.find("\"name\": \"nccl:all_reduce\"") != std::string::npos ||
                   e.find("\"name\": \"nccl:broadcast\"") != std::string::npos;
        };
        std::vector<int64_t> allReduces;
        kinetotext::mapEvents(original, [&](const std::string &e) {
            if (e.find("\"name\": \"nccl:all_reduce\"") != std::string::npos)
                allReduces.push_back(kinetotext::eventTsNs(e));
            return std::optional<std::string>(e);
        });
        QCOMPARE(allReduces.size(), size_t(25));
        std::sort(allReduces.begin(), allReduces.end());
        const int64_t cut = allReduces[3];
        constexpr int64_t kAhead = 2'500'000;
        for (const bool withSeq : {true, false}) {
            // The seq_num of each collective, in the order the trace holds them (both ranks).
            int64_t seq = 700;
            const std::string annotated = kinetotext::mapEvents(original, [&](const std::string &e) {
                std::string out = e;
                const size_t args = out.find("\"args\": {");
                if (withSeq && isColl(e) && args != std::string::npos)
                    out.insert(args + 9, " \"Process Group Name\": \"0\", \"Process Group "
                                         "Description\": \"default_pg\", \"seq_num\": " +
                                             std::to_string(seq++) + ",");
                return std::optional<std::string>(out);
            });
            QTemporaryDir dir;
            for (int r = 0; r < 2; ++r) {
                std::string t = annotated;
                t.replace(t.find(from), from.size(),
                          "\"rank\": " + std::to_string(r) + ", \"world_size\": 2");
                if (r == 1) {
                    t = kinetotext::mapEvents(t, [&](const std::string &e) {
                        const int64_t ts = kinetotext::eventTsNs(e);
                        const bool meta = e.find("\"ph\": \"M\"") != std::string::npos;
                        return !meta && ts >= 0 && ts < cut ? std::nullopt
                                                            : std::optional<std::string>(e);
                    });
                    t = kinetotext::shiftAll(t, kAhead);
                }
                writeAll(dir.path().toStdString() + "/rank" + std::to_string(r) +
                             ".pt.trace.json",
                         t);
            }
            LoadOptions o;
            o.paths = {dir.path().toStdString()};
            const LoadResult r = JobLoader::load(o);
            QVERIFY2(r.timeline, r.fatalError.c_str());
            const Timeline &tl = *r.timeline;
            QCOMPARE(tl.workers.size(), size_t(2));
            // Each rank's all-reduce begins, corrected, in time order: rank 1's j-th is rank 0's
            // (j + 3)-th.
            auto begins = [&](size_t w) {
                std::vector<int64_t> out;
                const uint32_t id = tl.names.find("nccl:all_reduce");
                for (size_t ti = 0; ti < tl.workers[w].tracks.size(); ++ti) {
                    const EventTrack &t = tl.workers[w].tracks[ti];
                    for (size_t i = 0; i < t.count(); ++i)
                        if (t.nameId[i] == id)
                            out.push_back(tl.startNs(w, ti, i, ClockMode::Corrected));
                }
                std::sort(out.begin(), out.end());
                return out;
            };
            const std::vector<int64_t> b0 = begins(0), b1 = begins(1);
            QCOMPARE(b0.size(), size_t(25));
            QCOMPARE(b1.size(), size_t(22));
            int64_t worst = 0;
            for (size_t j = 0; j < b1.size(); ++j)
                worst = std::max(worst, std::abs(b1[j] - b0[j + 3]));
            qInfo("seq_num %s: worst all-reduce offset %lld ns", withSeq ? "given" : "absent",
                  (long long)worst);
            if (withSeq) {
                QVERIFY2(worst <= 10'000, std::to_string(worst).c_str());
                QCOMPARE(tl.workers[1].clock.method, sync::ClockMethod::Collectives);
            } else {
                QVERIFY2(worst > 10'000, std::to_string(worst).c_str());
            }
        }
    }

    // The Kineto view conventions on the real 2024 trace: the worker's label names no restart;
    // tracks labelled by process_labels ("CPU / thread 1262 (pt_autograd_0)", "GPU 0 /
    // stream 7"), every CPU thread above every GPU stream, no label repeating its tid;
    // ProfilerStep#101..105 one name "ProfilerStep" with {"step": N} first in its args; the
    // profiler's own span flagged EventProfilerSpan (kept out of stats and the legend).
    void kinetoViewConventions()
    {
        const LoadResult r = load({gzTrace()});
        QVERIFY2(r.timeline, r.fatalError.c_str());
        const Timeline &tl = *r.timeline;
        QCOMPARE(tl.workers.size(), size_t(1));
        const Worker &w = tl.workers[0];
        QVERIFY2(w.label().find("restart") == std::string::npos, w.label().c_str());
        int lastCpu = -1, firstGpu = -1;
        for (size_t ti = 0; ti < w.tracks.size(); ++ti) {
            const EventTrack &t = w.tracks[ti];
            const std::string label = t.label();
            qInfo("track %zu: %s", ti, label.c_str());
            if (t.threadName.starts_with("CPU / "))
                lastCpu = int(ti);
            if (t.threadName.starts_with("GPU ") && firstGpu < 0)
                firstGpu = int(ti);
            const std::string tid = std::to_string(t.tid);
            const size_t once = label.find(tid);
            QVERIFY2(once == std::string::npos || label.find(tid, once + tid.size()) == std::string::npos,
                     label.c_str());
        }
        QVERIFY(lastCpu >= 0 && firstGpu >= 0);
        QVERIFY2(w.tracks[0].threadName.starts_with("CPU / "), w.tracks[0].threadName.c_str());
        QVERIFY2(lastCpu < firstGpu, (std::to_string(lastCpu) + " " + std::to_string(firstGpu)).c_str());
        QVERIFY(std::any_of(w.tracks.begin(), w.tracks.end(), [](const EventTrack &t) {
            return t.threadName == "GPU 0 / stream 7" && t.label() == "GPU 0 / stream 7";
        }));
        for (uint32_t id = 0; id < tl.names.size(); ++id)
            QVERIFY2(!tl.names.name(id).starts_with("ProfilerStep#"),
                     std::string(tl.names.name(id)).c_str());
        const uint32_t step = tl.names.find("ProfilerStep");
        QVERIFY(step != UINT32_MAX);
        std::vector<std::string> stepArgs;
        size_t spans = 0;
        for (const EventTrack &t : w.tracks)
            for (size_t i = 0; i < t.count(); ++i) {
                if (t.nameId[i] == step)
                    stepArgs.emplace_back(tl.args.text(uint32_t(t.argsId(uint32_t(i)))));
                const bool span = tl.names.name(t.nameId[i]) == "PyTorch Profiler (0)";
                QCOMPARE(bool(t.flags[i] & EventProfilerSpan), span);
                spans += span;
            }
        QCOMPARE(spans, size_t(1));
        std::sort(stepArgs.begin(), stepArgs.end());
        QCOMPARE(stepArgs.size(), size_t(5));
        for (int k = 0; k < 5; ++k)
            QVERIFY2(stepArgs[size_t(k)].starts_with("{\"step\": " + std::to_string(101 + k) + ","),
                     stepArgs[size_t(k)].c_str());
    }

    // The real pair of ranks published by HTA (hta_sampled_kineto_2rank: 2 of a 128-rank job,
    // sub-sampled by its authors, 2023 traces without seq_num): the k-th instances of its NCCL
    // collectives are not the same operations across the two files, so the default alignment
    // must not trust them: rank 1 is left on its recorded clock with a note saying why, never
    // shifted by a wrong pairing; --no-align leaves both as recorded, and says so.
    void realSubSampledPairIsNotAlignedOnMismatchedInstances()
    {
        for (const bool align : {true, false}) {
            LoadOptions o;
            o.paths = {testdata::dir() + "/hta_sampled_kineto_2rank"};
            o.alignCollectives = align;
            const LoadResult r = JobLoader::load(o);
            QVERIFY2(r.timeline, r.fatalError.c_str());
            const Timeline &tl = *r.timeline;
            QCOMPARE(tl.workers.size(), size_t(2));
            QCOMPARE(tl.workers[1].info.rank, 1);
            QVERIFY(tl.workers[1].clock.method != sync::ClockMethod::Collectives);
            auto noted = [&](const std::string &needle) {
                return std::any_of(tl.clockNotes.begin(), tl.clockNotes.end(),
                                   [&](const std::string &n) {
                                       return n.find(needle) != std::string::npos;
                                   });
            };
            // Corrected = recorded for rank 1: its first event where the trace put it.
            const EventTrack &t = tl.workers[1].tracks[0];
            QCOMPARE(tl.toGlobal(1, t.localStart[0], ClockMode::Corrected),
                     tl.toGlobal(1, t.localStart[0], ClockMode::Raw));
            if (align)
                QVERIFY(noted("rank 1: not corrected")); // and why, in the notes before it
            else
                QVERIFY(noted("collective alignment off"));
        }
    }

    // Named alone, a JSON that is not a trace says what it is and why it was not loaded.
    void nonTraceJsonNamedAloneSaysWhatItIs_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("gzip");
        QTest::addColumn<QString>("says");
        QTest::newRow("number") << "n.json" << "42\n" << false << "JSON number (42)";
        QTest::newRow("array of numbers")
            << "a.json" << "[1, 2, 3]" << false << "JSON array of numbers ([1, 2, 3])";
        QTest::newRow("unrelated object")
            << "c.json" << "{\"model\": \"x\", \"lr\": 0.1}" << false
            << "JSON object without \"traceEvents\" (keys: lr, model)";
        QTest::newRow("gzip'd config")
            << "c.json.gz" << "{\"lr\": 0.1}" << true
            << "gzip'd JSON object without \"traceEvents\" (keys: lr)";
        QTest::newRow("gzip'd text") << "x.log.gz" << "hello\n" << true
                                     << "gzip'd text that is not JSON";
    }
    void nonTraceJsonNamedAloneSaysWhatItIs()
    {
        QFETCH(QString, name);
        QFETCH(QString, text);
        QFETCH(bool, gzip);
        QFETCH(QString, says);
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/" + name.toStdString();
        writeAll(path, gzip ? gzipText(text.toStdString()) : text.toStdString());
        const LoadResult r = load({path});
        QVERIFY(!r.timeline);
        QVERIFY2(r.fatalError.find(says.toStdString()) != std::string::npos,
                 r.fatalError.c_str());
        QVERIFY2(r.fatalError.find("not a Chrome trace") != std::string::npos,
                 r.fatalError.c_str());
        QVERIFY2(r.fatalError.find("no records") == std::string::npos, r.fatalError.c_str());
    }
};

QTEST_APPLESS_MAIN(TestKinetoTraces)
#include "tst_kinetotraces.moc"
