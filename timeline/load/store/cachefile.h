// CacheFile — the one format and place rule of the loader's cache files (LogIndex's `.sidx`,
// CorrectionCache's `.scc`): where they live, and a small binary record format with a magic,
// a version and a trailing FNV-1a 64 hash of every byte before it.
//
// Place: `<dir>/.syncline-index/` beside the logs; when that cannot be written,
// `$XDG_CACHE_HOME/syncline/index/<16 hex digits of the hash of dir>/` (`~/.cache` without
// XDG_CACHE_HOME). A place that is a symbolic link, not a directory, or owned by a user other
// than this one or root is never read or written (refusal()): anyone who can write the log
// directory could otherwise plant a link there and have the loader write through it. Files are
// written to a fresh temporary name created exclusively (O_EXCL: an existing name or a link there
// is never opened) and renamed over the final name, which replaces whatever is there (a link
// included) rather than writing through it.
// A reader checks the magic, the version, the hash and every length against what is left, so a
// truncated, corrupt or other-version file is refused, never half-read.
// Threading: values; any thread.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace syncline::load {

class CacheFile
{
public:
    static uint64_t hash(std::string_view bytes, uint64_t seed = 1469598103934665603ull);
    // A faster hash, 8 bytes a step (the event store's chunks: megabytes per window).
    static uint64_t wordHash(std::string_view bytes);
    // The directory for cache files of logs in `dir` (beside: the .syncline-index one).
    static std::string placeFor(const std::string &dir, bool beside);
    // placeFor(dir, beside) + "/" + name, or "" when that place is refused.
    static std::string fileIn(const std::string &dir, bool beside, const std::string &name);
    // Why the cache directory `place` must not be used ("" when it may, or does not exist yet):
    // a symbolic link, not a directory, or owned by another user than this one or root.
    static std::string refusal(const std::string &place);
    // After `written` (a cache file just written) replaced an older one of its kind: removes,
    // in its directory, the other files named `<stem>*<ext>` (the caches of an earlier state of
    // the logs) and the temporary files a killed writer left behind (`<name>.tmp.XXXXXX` of a
    // cache name, .sidx, .sevt, .scc or .slk, older than kOrphanAge: a younger one may be a
    // writer at work). Only regular files (lstat: a link is never followed nor removed), only
    // syncline's names. Returns the number removed.
    static constexpr int64_t kOrphanAgeS = 3600;
    static size_t removeStale(const std::string &written, std::string_view stem,
                              std::string_view ext);
    // Writes `parts` one after the other as `path`, atomically (a temporary file beside it,
    // renamed over); creates the directory. False when any step fails (nothing is left behind).
    static bool writeParts(const std::string &path, std::initializer_list<std::string_view> parts);

    class Writer
    {
    public:
        Writer(const char (&magic)[8], uint32_t version);
        void u32(uint32_t v) { raw(&v, 4); }
        void u64(uint64_t v) { raw(&v, 8); }
        void i64(int64_t v) { raw(&v, 8); }
        void f64(double v) { raw(&v, 8); }
        void str(std::string_view s)
        {
            u32(uint32_t(s.size()));
            m_bytes.append(s);
        }
        // Creates the directory, writes a temporary file beside `path` and renames it over; false
        // when any step fails (nothing is left behind).
        bool writeTo(const std::string &path) const;
        // The record's bytes with the trailing hash (what writeTo writes), to embed in a file.
        std::string finished() const;

    private:
        void raw(const void *p, size_t n) { m_bytes.append(static_cast<const char *>(p), n); }
        std::string m_bytes;
    };

    class Reader
    {
    public:
        Reader(std::string_view bytes, const char (&magic)[8], uint32_t version);
        bool ok() const { return m_ok; }
        const std::string &error() const { return m_error; }
        uint32_t u32();
        uint64_t u64();
        int64_t i64() { return int64_t(u64()); }
        double f64();
        std::string str();
        // A count of records of at least `minBytes` each: 0 (and not ok) when more than remain.
        size_t count(size_t minBytes);
        // True when every byte up to the trailing hash was read and nothing failed.
        bool finish();

    private:
        bool take(void *out, size_t n);
        std::string_view m_body;
        size_t m_pos = 0;
        bool m_ok = true;
        std::string m_error;
    };
};

} // namespace syncline::load
