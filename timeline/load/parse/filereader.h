// FileReader — small file helpers for the loaders: read a whole file, read its first bytes.
// Errors come back as "path: reason" text. Every open goes through openRegular(): O_NONBLOCK
// (open() on a FIFO would otherwise wait for a writer forever) and an fstat() check, so nothing
// but a regular file is ever read. Threading: stateless, any thread.
#pragma once

#include <string>
#include <string_view>

namespace syncline::load {

class FileReader
{
public:
    // A read-only private mapping of the whole file (empty view for an empty file).
    class Mapping
    {
    public:
        Mapping() = default;
        Mapping(const Mapping &) = delete;
        Mapping &operator=(const Mapping &) = delete;
        ~Mapping();
        std::string_view text() const { return {static_cast<const char *>(m_data), m_size}; }
        bool open(const std::string &path, std::string *error);

    private:
        void *m_data = nullptr;
        size_t m_size = 0;
    };

    // A read-only fd of `path` when it is a regular file; else -1 and *error = "cannot open:
    // <reason>" or "not a regular file (FIFO); skipped". Never blocks in open().
    static int openRegular(const std::string &path, std::string *error);
    static bool readAll(const std::string &path, std::string &out, std::string *error);
    static std::string head(const std::string &path, size_t bytes);
};

} // namespace syncline::load
