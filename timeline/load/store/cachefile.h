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
// open() is the one read-side trust rule every cache kind goes through: the place as above, the
// file itself opened without following a link and only when it is a regular file owned by this
// user or root, its record (the whole file, or the directory its last 8 bytes point to) whole
// and of this version. What the record describes (a log's LogFileStamp, a job's key) is
// compared by the caller right after (Opened::keyIs for keys); a refusal makes the loader parse
// the logs and write the cache again, never use it.
// Threading: values; any thread.
#pragma once

#include "timeline/model/loadproblem.h"

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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
    // One warning per directory of `logs` whose `.syncline-index` is refused (refusal()): the
    // logs there are loaded without its caches (those in the per-user place are still used).
    static std::vector<LoadProblem> refusedPlaces(const std::vector<std::string> &logs);
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
        Reader(Reader &&) = default;
        bool ok() const { return m_ok; }
        const std::string &error() const { return m_error; }
        uint32_t u32();
        uint64_t u64();
        int64_t i64() { return int64_t(u64()); }
        double f64();
        std::string str();
        // The same bytes as str() reads, as a view into the reader's bytes (valid as long as
        // they are): a large field read without a copy.
        std::string_view view();
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

    // Whole: the file is one record (index, correction cache). Directory: the file's last 8
    // bytes are the offset of its record, which runs up to them (event store, link store: the
    // chunks before it are read later, each checked against the record's hash of it).
    enum class Layout
    {
        Whole,
        Directory
    };
    // A cache file that passed open(): its record, ready to read.
    class Opened
    {
    public:
        Reader &reader() { return m_reader; }
        uint64_t fileSize() const { return m_size; }
        uint64_t recordOffset() const { return m_offset; } // 0 for Layout::Whole
        // The file opened and checked (read the chunks before a directory through it: the
        // same file, not whatever the name holds by then). Closed with this.
        int fd() const { return m_fd.fd; }
        // Reads the record's first field, a string: true when it is `key` (what the cache was
        // written for). False also on any read error.
        bool keyIs(const std::string &key);

    private:
        friend class CacheFile;
        struct Fd
        {
            int fd = -1;
            explicit Fd(int f) : fd(f) {}
            Fd(Fd &&o) noexcept : fd(o.fd) { o.fd = -1; }
            Fd &operator=(Fd &&) = delete;
            ~Fd();
        };
        Opened(Fd fd, std::unique_ptr<std::string> bytes, const char (&magic)[8], uint32_t version,
               uint64_t size, uint64_t offset);
        Fd m_fd;
        std::unique_ptr<std::string> m_bytes; // before m_reader, which views it
        Reader m_reader;
        uint64_t m_size = 0, m_offset = 0;
    };
    // Why a file there cannot be trusted, in words, when open() refuses it.
    static std::optional<Opened> open(const std::string &path, const char (&magic)[8],
                                      uint32_t version, Layout layout, std::string *why);
};

} // namespace syncline::load
