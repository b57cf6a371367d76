// fuzz_cachefiles — the loader's cache files (docs/reliability.md "Caches") under mutation that
// knows their structure. Once per process: a small job of three syncline logs (sync samples,
// nested spans, X events, instants, messages between neighbours, a counter, an event that never
// ends) is loaded without caches (the reference loads: whole and windowed), then with them, which
// writes every cache: per log the index (.sidx) and event store (.sevt), for the job the
// correction cache (.scc) and link store (.slk). Per input the caches are put back as written,
// one file is mutated, and the job is loaded with caches: whole or windowed (8 windows, both
// clock modes).
//
// Input: byte 0 picks the file (mod 8) and whether the mutation is made to pass the loader's
// own checks (bit 3, "forged"); byte 1 the window (bits 0-2), for the chunked files whether the
// chunks or the directory are mutated (bit 3), for an index or event store a windowed or a whole
// load (bit 4; the correction cache and link store are read by windowed loads only); then operations of 4 + n bytes (kind, position, length,
// data): overwrite, insert, erase, or set an aligned 8- or 4-byte field to a boundary value.
//  - corrupt (not forged): bytes change and no hash is fixed. Every load must equal the
//    reference exactly (events with their local and global times in both modes, flags, depth,
//    parents, args, links, counters, problems): the damage is detected and the logs are read.
//  - forged: the mutation keeps each record's stamp or key (the log's identity, the job's key)
//    and re-computes every hash the loader checks — the trailing hash of a record, the hash of
//    each changed chunk in its directory — so the loader decodes what was written. A cache is
//    trusted to describe its log once those checks pass, so a forged value may show (a time, a
//    name); what must hold is what the loader promises of any load: no crash, hang, sanitizer
//    report or leak; a timeline (a cache never makes a readable job unreadable); the model's
//    invariants (EventTrack: sorted, perfectly nested, parents before children, times within
//    ±2^62 ns, ends not before starts, name and args ids that exist); the same workers; and the
//    reports a user runs (stats, diagnosis, both clock modes) finish.
// scripts/fuzz.sh runs it with the other harnesses, seeded from tests/fuzz/seeds/cache/.
#include "cachefuzzjob.h"
#include "fuzztempfile.h"

#include "timeline/load/jobloader.h"
#include "timeline/load/store/cachefile.h"
#include "timeline/report/diagnosis.h"
#include "timeline/report/stats.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

using namespace syncline;
using syncline::load::CacheFile;
namespace fs = std::filesystem;
using namespace cachefuzz;

namespace {

struct Job
{
    std::string dir, cacheHome;
    std::vector<std::string> cacheFiles;      // the 8 files, in a fixed order
    std::map<std::string, std::string> bytes; // every file in the cache place, as first written
    Summary whole;
    std::vector<Summary> windows;
    std::vector<int> workerRanks;
};

LoadWindow windowOf(int k)
{
    static const int64_t spans[4][2] = {
        {0, 60 * kMs}, {90 * kMs, 130 * kMs}, {150 * kMs, 151 * kMs}, {0, 400 * kMs}};
    LoadWindow w;
    w.use = true;
    w.mode = k >= 4 ? ClockMode::Raw : ClockMode::Corrected;
    w.beginNs = spans[k % 4][0];
    w.endNs = spans[k % 4][1];
    return w;
}

LoadResult loadJob(const Job &job, bool caches, int window = -1)
{
    LoadOptions o;
    o.paths = {job.dir};
    o.threads = 1;
    o.writeIndex = caches;
    o.indexIntervalBytes = 2048; // many checkpoints in a small job
    if (window >= 0)
        o.window = windowOf(window);
    return JobLoader::load(o);
}

std::string readFile(const std::string &p)
{
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeFile(const std::string &p, const std::string &bytes)
{
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out)
        std::abort(); // the harness, not the code under test
}

std::string place(const Job &job)
{
    return job.dir + "/.syncline-index";
}

// Puts the cache place back as the first cached load left it (what a load wrote since goes).
void restore(const Job &job)
{
    std::error_code ec;
    fs::remove_all(place(job), ec);
    fs::remove_all(job.cacheHome, ec);
    fs::create_directories(place(job));
    fs::create_directories(job.cacheHome);
    for (const auto &[name, bytes] : job.bytes)
        writeFile(place(job) + "/" + name, bytes);
}

const Job &job()
{
    static const Job j = [] {
        static const FuzzTempFile root("job");
        Job j;
        j.dir = root.dir() + "/job";
        j.cacheHome = root.dir() + "/cache-home";
        fs::create_directories(j.dir);
        fs::create_directories(j.cacheHome);
        ::setenv("XDG_CACHE_HOME", j.cacheHome.c_str(), 1); // nothing outside the scratch dir
        for (int w = 0; w < kWorkers; ++w)
            writeFile(j.dir + "/timer_events." + num(w) + ".log", jobLog(w));
        const LoadResult plain = loadJob(j, false);
        if (!plain.timeline)
            finding("the job does not load: " + plain.fatalError);
        j.whole = summarise(*plain.timeline);
        for (const Worker &w : plain.timeline->workers)
            j.workerRanks.push_back(w.info.rank);
        for (int k = 0; k < 8; ++k) {
            const LoadResult r = loadJob(j, false, k);
            if (!r.timeline)
                finding("a window of the job does not load: " + r.fatalError);
            j.windows.push_back(summarise(*r.timeline));
        }
        if (!loadJob(j, true).timeline) // writes every cache
            finding("the cached load failed");
        for (const auto &e : fs::directory_iterator(place(j)))
            j.bytes[e.path().filename().string()] = readFile(e.path().string());
        for (const char *ext : {".sidx", ".sevt", ".scc", ".slk"})
            for (const auto &[name, b] : j.bytes)
                if (name.size() > std::strlen(ext) &&
                    name.compare(name.size() - std::strlen(ext), std::string::npos, ext) == 0)
                    j.cacheFiles.push_back(name);
        if (j.cacheFiles.size() != 8)
            finding("expected 8 cache files, found " + std::to_string(j.cacheFiles.size()));
        // The caches as written give exactly the reference loads (else every input would fail).
        restore(j);
        const LoadResult cached = loadJob(j, true);
        if (!cached.timeline || cached.logsFromStores != kWorkers)
            finding("the cached load does not read the event stores");
        if (const std::string d = firstDifference(summarise(*cached.timeline), j.whole); !d.empty())
            finding("the untouched caches load differently: " + d);
        for (int k = 0; k < 8; ++k) {
            restore(j);
            const LoadResult w = loadJob(j, true, k);
            if (!w.timeline || !w.timeline->window.readOnlyWindow)
                finding("the untouched caches do not give a windowed read");
            if (const std::string d = firstDifference(summarise(*w.timeline), j.windows[size_t(k)]);
                !d.empty())
                finding("window " + std::to_string(k) + ": the untouched caches differ: " + d);
        }
        return j;
    }();
    return j;
}

uint64_t getU64(const std::string &b, size_t at)
{
    uint64_t v = 0;
    std::memcpy(&v, b.data() + at, 8);
    return v;
}
void putU64(std::string &b, size_t at, uint64_t v)
{
    std::memcpy(b.data() + at, &v, 8);
}

// The byte layout of one cache file, as far as the forging needs it.
struct Layout
{
    bool chunked = false;   // .sevt, .slk: chunks, then a directory record, then its offset
    size_t recordBegin = 0; // the CacheFile record: magic, version, fields, hash
    size_t keepBegin = 0;   // the stamp (.sidx, .sevt) or key (.scc, .slk): never changed
    size_t keepEnd = 0;
    std::vector<size_t> chunkHashAt; // in a chunked file: where each chunk's hash is
    std::vector<std::pair<uint64_t, uint32_t>> chunks; // (offset, length)
};

Layout layoutOf(const std::string &name, const std::string &b)
{
    Layout l;
    const bool sevt = name.ends_with(".sevt"), slk = name.ends_with(".slk");
    l.chunked = sevt || slk;
    if (l.chunked)
        l.recordBegin = size_t(getU64(b, b.size() - 8));
    const size_t fields = l.recordBegin + 12; // after the magic and the version
    l.keepBegin = fields;
    if (name.ends_with(".sidx") || sevt) {
        l.keepEnd = fields + 48; // LogFileStamp: six 8-byte fields
    } else {
        uint32_t n = 0;
        std::memcpy(&n, b.data() + fields, 4);
        l.keepEnd = fields + 4 + n;
    }
    if (l.chunked) {
        // Directory entries end in (offset u64, length u32, hash u64): found by the hash of the
        // bytes they describe, so no second copy of the format is needed here.
        const size_t end = b.size() - 16;
        for (size_t k = l.keepEnd + 12; k + 8 <= end; ++k) {
            const uint64_t off = getU64(b, k - 12);
            uint32_t len = 0;
            std::memcpy(&len, b.data() + k - 4, 4);
            if (len == 0 || off > l.recordBegin || len > l.recordBegin - off)
                continue;
            if (CacheFile::wordHash(std::string_view(b).substr(size_t(off), len)) == getU64(b, k)) {
                l.chunkHashAt.push_back(k);
                l.chunks.emplace_back(off, len);
            }
        }
    }
    return l;
}

const uint64_t kBoundary[] = {0,
                              1,
                              UINT64_MAX,
                              uint64_t(INT64_MAX),
                              uint64_t(INT64_MIN),
                              uint64_t(1) << 62,
                              (uint64_t(1) << 62) + 1,
                              uint64_t(-(int64_t(1) << 62)) - 1,
                              0xffffffffull,
                              0x80000000ull,
                              1024,
                              1025};

// Applies the operations in `ops` to b[lo, hi) (hi moves with inserts and erases), leaving
// [keepBegin, keepEnd) as it is (it moves along when bytes are inserted or erased before it).
// `sizeKept`: only overwrites (the chunks of a chunked file: their offsets stay right).
void mutate(std::string &b, size_t lo, size_t &hi, size_t &keepBegin, size_t &keepEnd,
            const uint8_t *ops, size_t n, bool sizeKept)
{
    auto kept = [&](size_t a, size_t e) { return a < keepEnd && e > keepBegin; };
    for (size_t i = 0; i + 4 <= n && b.size() < (1u << 20);) {
        const uint8_t kind = ops[i] % 6;
        const size_t span = hi - lo;
        const size_t pos = span ? lo + (size_t(ops[i + 1]) << 8 | ops[i + 2]) % span : lo;
        const size_t len = ops[i + 3] % 17;
        i += 4;
        const size_t take = std::min(len, n - i);
        const std::string data(reinterpret_cast<const char *>(ops + i), take);
        if (kind == 0 || kind == 1) // overwrite
            i += take;
        if (sizeKept && (kind == 2 || kind == 3))
            continue;
        switch (kind) {
        case 0:
        case 1: {
            const size_t e = std::min(pos + take, hi);
            if (pos < e && !kept(pos, e))
                b.replace(pos, e - pos, data.substr(0, e - pos));
            break;
        }
        case 2: // insert
            i += take;
            if (pos >= keepBegin && pos < keepEnd)
                break;
            b.insert(pos, data);
            hi += take;
            if (pos <= keepBegin) {
                keepBegin += take;
                keepEnd += take;
            }
            break;
        case 3: { // erase
            const size_t e = std::min(pos + len, hi);
            if (pos >= e || kept(pos, e))
                break;
            b.erase(pos, e - pos);
            hi -= e - pos;
            if (e <= keepBegin) {
                keepBegin -= e - pos;
                keepEnd -= e - pos;
            }
            break;
        }
        case 4: { // an aligned-ish 8-byte field set to a boundary value (or nudged by ±1)
            if (span < 8)
                break;
            const size_t at = std::min(pos, hi - 8);
            if (kept(at, at + 8))
                break;
            const uint8_t v = ops[i - 1] / 17;
            putU64(b, at, v < 12 ? kBoundary[v] : getU64(b, at) + (v & 1 ? 1 : -1));
            break;
        }
        case 5: { // a 4-byte count or length set to a boundary value (or nudged by ±1)
            if (span < 4)
                break;
            const size_t at = std::min(pos, hi - 4);
            if (kept(at, at + 4))
                break;
            uint32_t x = 0;
            std::memcpy(&x, b.data() + at, 4);
            const uint8_t v = ops[i - 1] / 17;
            x = v < 12 ? uint32_t(kBoundary[v]) : x + (v & 1 ? 1 : -1);
            std::memcpy(b.data() + at, &x, 4);
            break;
        }
        }
    }
}

// The file `name` mutated by `ops`; with `forge`, its hashes re-computed over the new bytes.
std::string mutated(const std::string &name, const std::string &orig, bool forge, bool chunks,
                    const uint8_t *ops, size_t n)
{
    std::string b = orig;
    Layout l = layoutOf(name, b);
    size_t keepBegin = forge ? l.keepBegin : 0, keepEnd = forge ? l.keepEnd : 0;
    if (!forge) {
        size_t hi = b.size();
        mutate(b, 0, hi, keepBegin, keepEnd, ops, n, false);
        return b;
    }
    if (l.chunked && chunks && !l.chunks.empty()) {
        size_t hi = l.recordBegin;
        mutate(b, 0, hi, keepBegin, keepEnd, ops, n, true);
        for (size_t k = 0; k < l.chunks.size(); ++k)
            putU64(b, l.chunkHashAt[k],
                   CacheFile::wordHash(
                       std::string_view(b).substr(size_t(l.chunks[k].first), l.chunks[k].second)));
    } else {
        // The record's fields (after magic and version: those only ever make a file refused).
        size_t hi = b.size() - (l.chunked ? 16 : 8);
        mutate(b, l.recordBegin + 12, hi, keepBegin, keepEnd, ops, n, false);
    }
    // The record's own hash, over the record as it now is.
    const size_t hashAt = b.size() - (l.chunked ? 16 : 8);
    putU64(b, hashAt,
           CacheFile::hash(std::string_view(b).substr(l.recordBegin, hashAt - l.recordBegin)));
    return b;
}

void runReports(const Timeline &tl)
{
    for (const ClockMode mode : {ClockMode::Corrected, ClockMode::Raw}) {
        StatsQuery q;
        q.mode = mode;
        (void)Stats::compute(tl, q);
        DiagnoseQuery dq;
        dq.mode = mode;
        dq.threads = 1;
        (void)Diagnoser::run(tl, dq);
    }
}

void checkLoad(const Job &j, const LoadResult &r, const Summary &reference, bool forge,
               const char *what)
{
    if (!r.timeline || !r.fatalError.empty())
        finding(std::string(what) + ": no timeline from a readable job: " + r.fatalError);
    // FUZZ_CACHEFILES_VERBOSE=1 (replaying inputs): whether the caches were read and what the
    // mutation changed, to see that forged files get past the checks.
    if (std::getenv("FUZZ_CACHEFILES_VERBOSE")) {
        const std::string d = firstDifference(summarise(*r.timeline), reference);
        std::fprintf(stderr, "fuzz_cachefiles: %s (%s): %zu logs from stores, %s; %s\n", what,
                     forge ? "forged" : "damaged", r.logsFromStores,
                     r.timeline->window.readOnlyWindow ? "read through the index" : "parsed",
                     d.empty() ? "equal to the load without caches" : d.c_str());
    }
    if (!forge) {
        if (const std::string d = firstDifference(summarise(*r.timeline), reference); !d.empty())
            finding(std::string(what) +
                    " with a damaged cache differs from the load without: " + d);
        return;
    }
    checkInvariants(*r.timeline, what);
    std::vector<int> ranks;
    for (const Worker &w : r.timeline->workers)
        ranks.push_back(w.info.rank);
    if (ranks != j.workerRanks)
        finding(std::string(what) + ": other workers than the logs'");
    runReports(*r.timeline);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const Job &j = job();
    const std::string &name = j.cacheFiles[data[0] % 8];
    const bool forge = data[0] & 8;
    const int window = data[1] % 8;
    const bool chunks = data[1] & 8;
    // The correction cache and the link store are read by windowed loads only; an index or an
    // event store by both (bit 4 of byte 1 picks).
    const bool windowed = !(name.ends_with(".sidx") || name.ends_with(".sevt")) || (data[1] & 16);
    restore(j);
    writeFile(place(j) + "/" + name,
              mutated(name, j.bytes.at(name), forge, chunks, data + 2, size - 2));
    if (windowed)
        checkLoad(j, loadJob(j, true, window), j.windows[size_t(window)], forge, "a windowed load");
    else
        checkLoad(j, loadJob(j, true), j.whole, forge, "the whole load");
    return 0;
}
