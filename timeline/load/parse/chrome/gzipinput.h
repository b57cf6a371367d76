// GzipInput — reads gzip-compressed inputs (`*.json.gz`, `*.pt.trace.json.gz`: what
// tensorboard_trace_handler(use_gzip=True) and most training frameworks write) with zlib,
// streaming: the compressed file is read in 256 KiB pieces and inflated straight into the
// buffer the JSON parser reads (a BigBuffer: huge pages, grown in place), sized from the gzip
// trailer's length — no copy of the inflated bytes.
//
// Recognised by content (the two magic bytes 1f 8b), whatever the name. Concatenated members
// (what `cat a.gz b.gz` gives) are read as one stream, as gzip does.
// What cannot be read whole is read as far as it goes and said: a stream that ends early (a
// file cut while written) or corrupt data gives the bytes inflated before that point plus a
// note naming the compressed offset and the inflated length where it stopped; the caller loads
// what those bytes hold (the JSON reader closes a truncated trace after its last event).
// Limit: an inflated stream longer than half this machine's memory (a "gzip bomb" is 1000:1) is
// cut there, with the same note, instead of exhausting memory.
// Threading: stateless; any thread, one call per file.
#pragma once

#include "timeline/load/parse/bigbuffer.h"

#include <atomic>
#include <cstdint>
#include <string>

namespace syncline::load {

class GzipInput
{
public:
    static bool isGzip(const std::string &path); // starts with 1f 8b
    // The first `bytes` bytes of the inflated stream (fewer when it is shorter or damaged); ""
    // when the file cannot be read.
    static std::string head(const std::string &path, size_t bytes);

    struct Result
    {
        bool ok = false;       // false: nothing readable (error says why)
        std::string error;     // "cannot open: …", "not gzip data: …"
        std::string stopped;   // non-empty when the stream was not read to its end
        size_t length = 0;     // inflated bytes in `text` (text.size() may be larger)
        int64_t compressed = 0; // the file's size
    };
    // Inflates `path` into `text` (its first `length` bytes, then BigBuffer::kPadding zeros).
    // `maxBytes` 0 = the default limit (half of physical memory).
    static Result inflate(const std::string &path, BigBuffer &text,
                          const std::atomic<bool> *cancel = nullptr, size_t maxBytes = 0);
};

} // namespace syncline::load
