// fuzz_logparser — the syncline log parser (LogParser, with LineScanner under it) on one log
// read two ways: whole (as JobLoader reads a finished file) and in chunks that end anywhere, each
// feed() getting what the previous one left plus the next chunk (as LiveFile follows a growing
// file). The two must produce the same worker: same events, names, flags, times, problems,
// samples and counters. The first input byte seeds the chunk sizes (1..64 bytes, sometimes 4 KiB).
#include "timeline/load/parse/log/logparser.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

using syncline::load::LogParser;
using syncline::load::ParsedFile;

namespace {

[[noreturn]] void mismatch(const char *what)
{
    std::fprintf(stderr, "fuzz_logparser: whole and chunked reads disagree: %s\n", what);
    std::abort();
}

void compare(const ParsedFile &a, const ParsedFile &b)
{
    if (a.usable != b.usable || a.rankKnown != b.rankKnown)
        mismatch("usable/rankKnown");
    if (a.records != b.records || a.bytes != b.bytes)
        mismatch("records/bytes");
    const auto &ia = a.worker.info, &ib = b.worker.info;
    if (ia.rank != ib.rank || ia.restart != ib.restart || ia.host != ib.host ||
        ia.firstLocalNs != ib.firstLocalNs || ia.lastLocalNs != ib.lastLocalNs ||
        ia.closedCleanly != ib.closedCleanly || ia.droppedEvents != ib.droppedEvents ||
        ia.anchorMonoNs != ib.anchorMonoNs || ia.anchorWallNs != ib.anchorWallNs)
        mismatch("worker info");
    if (a.worker.tracks.size() != b.worker.tracks.size())
        mismatch("track count");
    for (size_t t = 0; t < a.worker.tracks.size(); ++t) {
        const auto &ta = a.worker.tracks[t], &tb = b.worker.tracks[t];
        if (ta.tid != tb.tid || ta.threadName != tb.threadName || ta.count() != tb.count() ||
            ta.localStart != tb.localStart || ta.localEnd != tb.localEnd || ta.flags != tb.flags)
            mismatch("track events");
        for (size_t i = 0; i < ta.count(); ++i)
            if (a.names.name(ta.nameId[i]) != b.names.name(tb.nameId[i]))
                mismatch("event name");
        if (ta.argRefs.size() != tb.argRefs.size())
            mismatch("args count");
    }
    if (a.worker.samples.size() != b.worker.samples.size() || a.worker.refId != b.worker.refId)
        mismatch("sync samples");
    if (a.messages.size() != b.messages.size())
        mismatch("messages");
    if (a.problems.size() != b.problems.size())
        mismatch("problem count");
    for (size_t i = 0; i < a.problems.size(); ++i)
        if (a.problems[i].line != b.problems[i].line ||
            a.problems[i].message != b.problems[i].message ||
            a.problems[i].severity != b.problems[i].severity ||
            a.problems[i].kind != b.problems[i].kind)
            mismatch("problem text");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint32_t rng = 2654435761u * (uint32_t(data[0]) + 1);
    const std::string_view text(reinterpret_cast<const char *>(data) + 1, size - 1);
    // A name with a rank in it, as most logs have (the headerless path takes it from here).
    const std::string path = "timer_events.3.log";

    LogParser whole(path);
    const size_t used = whole.feed(text);
    const ParsedFile a = whole.finish(text.substr(used));

    LogParser chunked(path);
    std::string carry;
    size_t off = 0;
    while (off < text.size()) {
        rng = rng * 1103515245u + 12345u;
        size_t n = (rng >> 16) % 17 == 0 ? 4096 : 1 + (rng >> 16) % 64;
        n = std::min(n, text.size() - off);
        carry.append(text.substr(off, n));
        off += n;
        carry.erase(0, chunked.feed(carry));
        (void)chunked.partial().worker.tracks.size(); // what LiveFile reads between feeds
    }
    const ParsedFile b = chunked.finish(carry);
    compare(a, b);
    return 0;
}
