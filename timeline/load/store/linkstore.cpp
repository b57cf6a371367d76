#include "timeline/load/store/linkstore.h"

#include "timeline/load/store/cachefile.h"
#include "timeline/load/store/correctioncache.h"
#include "timeline/load/parse/filereader.h"
#include "timeline/load/store/varint.h"
#include "timeline/load/store/windowreader.h"

#include "recorder/timerange.h"

#include <algorithm>
#include <filesystem>
#include <unistd.h>

namespace syncline::load {

namespace fs = std::filesystem;

namespace {

constexpr char kMagic[8] = {'S', 'Y', 'N', 'C', 'L', 'N', 'K', '1'};

struct Chunk
{
    uint32_t count = 0;
    int64_t minG[2] = {INT64_MAX, INT64_MAX}, maxG[2] = {INT64_MIN, INT64_MIN};
    uint64_t offset = 0;
    uint32_t length = 0;
    uint64_t hash = 0;
};

std::string normal(const std::string &p)
{
    return fs::absolute(p).lexically_normal().string();
}

} // namespace

bool LinkStore::write(const Timeline &tl, const std::vector<std::string> &logs,
                      const ClockCorrector::Options &options)
{
    const std::string key = CorrectionCache::keyOf(logs, options);
    if (key.empty())
        return false;
    std::string chunks;
    std::vector<Chunk> dir;
    for (size_t from = 0; from < tl.links.size(); from += kChunkLinks) {
        const size_t n = std::min(kChunkLinks, tl.links.size() - from);
        Chunk c;
        c.offset = chunks.size();
        c.count = uint32_t(n);
        std::string out;
        int64_t prev = 0;
        for (size_t i = from; i < from + n; ++i) {
            const MessageLink &l = tl.links[i];
            if (l.fromWorker >= tl.workers.size() || l.toWorker >= tl.workers.size())
                return false;
            varint::put(out, l.fromWorker);
            varint::put(out, l.fromTrack);
            varint::put(out, l.toWorker);
            varint::put(out, (uint64_t(l.toTrack) << 1) | uint64_t(l.kind));
            varint::put(out, varint::zig(l.fromLocal - prev));
            prev = l.fromLocal;
            varint::put(out, varint::zig(l.toLocal - l.fromLocal));
            for (int m = 0; m < 2; ++m) {
                const ClockMode mode = m == 0 ? ClockMode::Corrected : ClockMode::Raw;
                const int64_t f = tl.map(l.fromWorker, mode).toGlobal(l.fromLocal);
                const int64_t t = tl.map(l.toWorker, mode).toGlobal(l.toLocal);
                c.minG[m] = std::min({c.minG[m], f, t});
                c.maxG[m] = std::max({c.maxG[m], f, t});
            }
        }
        c.length = uint32_t(out.size());
        c.hash = CacheFile::wordHash(out);
        chunks += out;
        dir.push_back(c);
    }
    CacheFile::Writer w(kMagic, kVersion);
    w.str(key);
    w.u32(uint32_t(tl.workers.size()));
    for (const Worker &wk : tl.workers)
        w.str(normal(wk.info.sourceFile));
    w.u32(uint32_t(dir.size()));
    for (const Chunk &c : dir) {
        w.u32(c.count);
        for (int m = 0; m < 2; ++m) {
            w.i64(c.minG[m]);
            w.i64(c.maxG[m]);
        }
        w.u64(c.offset);
        w.u32(c.length);
        w.u64(c.hash);
    }
    const uint64_t dirOffset = chunks.size();
    std::string tail = w.finished();
    tail.append(reinterpret_cast<const char *>(&dirOffset), 8);
    for (bool beside : {true, false}) {
        const std::string path = CorrectionCache::fileOf(logs, key, beside, "links-", ".slk");
        if (CacheFile::writeParts(path, {chunks, tail})) {
            CacheFile::removeStale(path, "links-", ".slk");
            return true;
        }
    }
    return false;
}

bool LinkStore::exists(const std::vector<std::string> &logs,
                       const ClockCorrector::Options &options)
{
    const std::string key = CorrectionCache::keyOf(logs, options);
    std::error_code ec;
    for (bool beside : {true, false})
        if (std::filesystem::exists(CorrectionCache::fileOf(logs, key, beside, "links-", ".slk"),
                                    ec))
            return true;
    return false;
}

bool LinkStore::readWindow(Timeline &tl, const std::vector<std::string> &logs,
                           const ClockCorrector::Options &options, ClockMode mode, int64_t begin,
                           int64_t end, int64_t *bytesRead, std::string *why)
{
    std::string reason = "no link store";
    const std::string key = CorrectionCache::keyOf(logs, options, &reason);
    if (key.empty()) {
        if (why)
            *why = reason;
        return false;
    }
    const int m = mode == ClockMode::Raw ? 1 : 0;
    for (bool beside : {true, false}) {
        const std::string p = CorrectionCache::fileOf(logs, key, beside, "links-", ".slk");
        std::error_code ec;
        if (p.empty() || !std::filesystem::exists(std::filesystem::symlink_status(p, ec)))
            continue;
        std::string error;
        std::optional<CacheFile::Opened> file =
            CacheFile::open(p, kMagic, kVersion, CacheFile::Layout::Directory, &error);
        if (!file) {
            reason = p + ": " + error;
            continue;
        }
        CacheFile::Reader &r = file->reader();
        const uint64_t dirOffset = file->recordOffset();
        const int fd = file->fd();
        if (!file->keyIs(key)) {
            reason = p + ": stale";
            continue;
        }
        std::vector<std::string> order(r.count(4));
        for (std::string &s : order)
            s = r.str();
        std::vector<Chunk> dir(r.count(56));
        for (Chunk &c : dir) {
            c.count = r.u32();
            for (int k = 0; k < 2; ++k) {
                c.minG[k] = r.i64();
                c.maxG[k] = r.i64();
            }
            c.offset = r.u64();
            c.length = r.u32();
            c.hash = r.u64();
        }
        if (!r.finish()) {
            reason = p + ": " + r.error();
            continue;
        }
        // Every chunk within the bytes before the directory (nothing is read or allocated by a
        // length the file does not hold).
        if (!std::all_of(dir.begin(), dir.end(), [&](const Chunk &c) {
                return c.count > 0 && c.count <= kChunkLinks && c.offset <= dirOffset &&
                       c.length <= dirOffset - c.offset;
            })) {
            reason = p + ": inconsistent directory";
            continue;
        }
        bool sameWorkers = order.size() == tl.workers.size();
        for (size_t w = 0; sameWorkers && w < order.size(); ++w)
            sameWorkers = order[w] == normal(tl.workers[w].info.sourceFile);
        if (!sameWorkers) {
            reason = p + ": another worker order";
            continue;
        }
        // Two passes over the chosen chunks: count, then fill a vector of exactly that size
        // (a growing vector would hold up to twice the window's links at the peak).
        LinkTable links; // built in the stored order (16 bytes a link, no 32-byte copy)
        std::string buf;
        int64_t read = 0;
        bool damaged = false;
        // Per worker, the window's rule by local thresholds (WindowTest: no map lookup per end).
        std::vector<WindowTest> in;
        in.reserve(tl.workers.size());
        for (size_t w = 0; w < tl.workers.size(); ++w)
            in.emplace_back(tl.map(w, mode), begin, end);
        auto inside = [&](uint32_t w, int64_t local) { return in[w].keep(local, local); };
        size_t kept = 0;
        for (int pass = 0; pass < 2 && !damaged; ++pass) {
            if (pass == 1)
                links.reserve(kept);
            for (const Chunk &c : dir) {
                if (c.maxG[m] < begin || c.minG[m] > end)
                    continue;
                buf.resize(c.length); // checked against the file above
                if (!varint::preadExact(fd, buf.data(), c.length, int64_t(c.offset)) ||
                    CacheFile::wordHash(buf) != c.hash) {
                    damaged = true;
                    break;
                }
                if (pass == 0)
                    read += c.length;
                varint::Reader v(buf);
                int64_t prev = 0;
                for (uint32_t i = 0; i < c.count && !damaged; ++i) {
                    MessageLink l;
                    const uint64_t fw = v.get(), ft = v.get(), tw = v.get(), tk = v.get();
                    // Sums modulo 2^64 (a corrupt delta is no undefined behaviour), then the
                    // parser's rule: a time beyond ±2^62 ns is one no load gives.
                    l.fromLocal = int64_t(uint64_t(prev) + uint64_t(varint::unzig(v.get())));
                    prev = l.fromLocal;
                    l.toLocal = int64_t(uint64_t(l.fromLocal) + uint64_t(varint::unzig(v.get())));
                    if (v.bad || !rec::logTimeInRange(l.fromLocal) ||
                        !rec::logTimeInRange(l.toLocal) || fw >= tl.workers.size() ||
                        tw >= tl.workers.size() ||
                        ft >= tl.workers[fw].tracks.size() ||
                        (tk >> 1) >= tl.workers[tw].tracks.size()) {
                        damaged = true;
                        break;
                    }
                    l.fromWorker = uint32_t(fw);
                    l.fromTrack = uint32_t(ft);
                    l.toWorker = uint32_t(tw);
                    l.toTrack = uint32_t(tk >> 1) & 0x7fffffffu;
                    l.kind = uint32_t(tk & 1);
                    if (!inside(l.fromWorker, l.fromLocal) || !inside(l.toWorker, l.toLocal))
                        continue;
                    if (pass == 0)
                        ++kept;
                    else if (links.size() < kept && !links.appendInOrder(l))
                        damaged = true; // out of order: not the table that was written
                }
                if (!damaged && v.p != v.end)
                    damaged = true;
            }
        }
        if (damaged) {
            reason = p + ": corrupt chunk";
            continue;
        }
        links.shrink_to_fit();
        tl.links = std::move(links);
        if (bytesRead)
            *bytesRead += read;
        return true;
    }
    if (why)
        *why = reason;
    return false;
}

} // namespace syncline::load
