#include "timeline/load/store/cachefile.h"

#include <cerrno>
#include <cstdio>
#include <ctime>
#include <dirent.h>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <sys/stat.h>
#include <unistd.h>

namespace syncline::load {

namespace fs = std::filesystem;

uint64_t CacheFile::hash(std::string_view bytes, uint64_t h)
{
    for (unsigned char c : bytes) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

uint64_t CacheFile::wordHash(std::string_view bytes)
{
    uint64_t h = 0x9e3779b97f4a7c15ull ^ bytes.size();
    size_t i = 0;
    for (; i + 8 <= bytes.size(); i += 8) {
        uint64_t w;
        std::memcpy(&w, bytes.data() + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    }
    for (; i < bytes.size(); ++i)
        h = (h ^ uint8_t(bytes[i])) * 0x100000001b3ull;
    h ^= h >> 33;
    return h * 0xc4ceb9fe1a85ec53ull;
}

std::string CacheFile::placeFor(const std::string &dir, bool beside)
{
    if (beside)
        return dir + "/.syncline-index";
    std::string base;
    if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x)
        base = x;
    else if (const char *h = std::getenv("HOME"); h && *h)
        base = std::string(h) + "/.cache";
    else
        base = "/tmp";
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)hash(dir));
    return base + "/syncline/index/" + hex;
}

std::string CacheFile::fileIn(const std::string &dir, bool beside, const std::string &name)
{
    const std::string place = placeFor(dir, beside);
    if (!refusal(place).empty())
        return {};
    return place + "/" + name;
}

std::string CacheFile::refusal(const std::string &place)
{
    struct stat st
    {
    };
    // lstat: the place itself, not what a link there points to.
    if (::lstat(place.c_str(), &st) != 0)
        return {}; // not there yet: made by the first write (ours)
    if (S_ISLNK(st.st_mode))
        return "a symbolic link";
    if (!S_ISDIR(st.st_mode))
        return "not a directory";
    if (st.st_uid != ::geteuid() && st.st_uid != 0)
        return "owned by another user (uid " + std::to_string(st.st_uid) + ")";
    return {};
}

std::vector<LoadProblem> CacheFile::refusedPlaces(const std::vector<std::string> &logs)
{
    std::set<std::string> dirs;
    for (const std::string &log : logs)
        dirs.insert(fs::absolute(log).lexically_normal().parent_path().string());
    std::vector<LoadProblem> out;
    for (const std::string &dir : dirs) {
        const std::string place = placeFor(dir, true);
        const std::string why = refusal(place);
        if (why.empty())
            continue;
        LoadProblem p;
        p.kind = LoadProblem::Kind::CacheDirRefused;
        p.severity = LoadProblem::Severity::Warning;
        p.file = place;
        p.message = "cache directory not used: " + why +
                    " (the logs beside it are read without its index files and event stores)";
        out.push_back(std::move(p));
    }
    return out;
}

CacheFile::Writer::Writer(const char (&magic)[8], uint32_t version)
{
    m_bytes.append(magic, 8);
    u32(version);
}

std::string CacheFile::Writer::finished() const
{
    const uint64_t h = hash(m_bytes);
    std::string all = m_bytes;
    all.append(reinterpret_cast<const char *>(&h), 8);
    return all;
}

bool CacheFile::Writer::writeTo(const std::string &path) const
{
    return writeParts(path, {finished()});
}

bool CacheFile::writeParts(const std::string &path, std::initializer_list<std::string_view> parts)
{
    if (path.empty())
        return false; // a refused place (fileIn)
    std::error_code ec;
    const fs::path p(path);
    fs::create_directories(p.parent_path(), ec);
    // Checked after it exists: it may have been there (planted) before create_directories.
    if (ec || !refusal(p.parent_path().string()).empty())
        return false;
    // A fresh name, created exclusively: O_EXCL fails on any existing name, a symbolic link
    // (even a dangling one) included, so a planted name is never opened or truncated.
    std::string tmp = path + ".tmp.XXXXXX";
    const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd < 0)
        return false;
    ::fchmod(fd, 0644); // mkostemp makes 0600; the caches are as readable as the logs
    for (std::string_view part : parts) {
        size_t done = 0;
        while (done < part.size()) {
            const ssize_t n = ::write(fd, part.data() + done, part.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                ::close(fd);
                ::unlink(tmp.c_str());
                return false;
            }
            done += size_t(n);
        }
    }
    // rename() replaces the final name itself (a link there included), never its target.
    if (::close(fd) != 0 || ::rename(tmp.c_str(), path.c_str()) != 0) {
        ::unlink(tmp.c_str());
        return false;
    }
    return true;
}

CacheFile::Reader::Reader(std::string_view bytes, const char (&magic)[8], uint32_t version)
{
    if (bytes.size() < 8 + 4 + 8 || std::memcmp(bytes.data(), magic, 8) != 0) {
        m_ok = false;
        m_error = "not an index file (bad magic or too short)";
        return;
    }
    uint64_t stored = 0;
    std::memcpy(&stored, bytes.data() + bytes.size() - 8, 8);
    m_body = bytes.substr(0, bytes.size() - 8);
    if (hash(m_body) != stored) {
        m_ok = false;
        m_error = "corrupt (hash mismatch)";
        return;
    }
    m_pos = 8;
    const uint32_t v = u32();
    if (v != version) {
        m_ok = false;
        m_error = "index format version " + std::to_string(v) + ", this reader knows " +
                  std::to_string(version);
    }
}

bool CacheFile::Reader::take(void *out, size_t n)
{
    if (!m_ok || m_body.size() - m_pos < n) {
        if (m_ok)
            m_error = "truncated";
        m_ok = false;
        std::memset(out, 0, n);
        return false;
    }
    std::memcpy(out, m_body.data() + m_pos, n);
    m_pos += n;
    return true;
}

uint32_t CacheFile::Reader::u32()
{
    uint32_t v = 0;
    take(&v, 4);
    return v;
}

uint64_t CacheFile::Reader::u64()
{
    uint64_t v = 0;
    take(&v, 8);
    return v;
}

double CacheFile::Reader::f64()
{
    double v = 0;
    take(&v, 8);
    return v;
}

std::string CacheFile::Reader::str()
{
    return std::string(view());
}

std::string_view CacheFile::Reader::view()
{
    const uint32_t n = u32();
    if (!m_ok || m_body.size() - m_pos < n) {
        if (m_ok)
            m_error = "truncated";
        m_ok = false;
        return {};
    }
    const std::string_view s = m_body.substr(m_pos, n);
    m_pos += n;
    return s;
}

size_t CacheFile::Reader::count(size_t minBytes)
{
    const uint32_t n = u32();
    if (!m_ok || (m_body.size() - m_pos) / std::max<size_t>(minBytes, 1) < n) {
        if (m_ok)
            m_error = "truncated";
        m_ok = false;
        return 0;
    }
    return n;
}

bool CacheFile::Reader::finish()
{
    if (m_ok && m_pos != m_body.size()) {
        m_ok = false;
        m_error = "trailing bytes";
    }
    return m_ok;
}

CacheFile::Opened::Fd::~Fd()
{
    if (fd >= 0)
        ::close(fd);
}

CacheFile::Opened::Opened(Fd fd, std::unique_ptr<std::string> bytes, const char (&magic)[8],
                          uint32_t version, uint64_t size, uint64_t offset)
    : m_fd(std::move(fd)), m_bytes(std::move(bytes)), m_reader(*m_bytes, magic, version),
      m_size(size), m_offset(offset)
{
}

bool CacheFile::Opened::keyIs(const std::string &key)
{
    return m_reader.ok() && m_reader.str() == key && m_reader.ok();
}

std::optional<CacheFile::Opened> CacheFile::open(const std::string &path, const char (&magic)[8],
                                                 uint32_t version, Layout layout,
                                                 std::string *why)
{
    auto refuse = [&](const std::string &reason) -> std::optional<Opened> {
        if (why)
            *why = reason;
        return std::nullopt;
    };
    if (path.empty())
        return refuse("cache place refused");
    if (const std::string r = refusal(fs::path(path).parent_path().string()); !r.empty())
        return refuse("cache place is " + r);
    // O_NOFOLLOW: a link planted under a cache name is never read through; O_NONBLOCK: a FIFO
    // there does not block the open (fstat refuses it next).
    Opened::Fd guard(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW));
    const int fd = guard.fd;
    if (fd < 0)
        return refuse(errno == ELOOP ? "a symbolic link" : std::string(std::strerror(errno)));
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return refuse("not a regular file");
    if (st.st_uid != ::geteuid() && st.st_uid != 0)
        return refuse("owned by another user (uid " + std::to_string(st.st_uid) + ")");
    const uint64_t size = uint64_t(st.st_size);
    uint64_t offset = 0;
    auto readAt = [&](char *out, uint64_t n, uint64_t at) {
        uint64_t done = 0;
        while (done < n) {
            const ssize_t r = ::pread(fd, out + done, size_t(n - done), off_t(at + done));
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return false;
            done += uint64_t(r);
        }
        return true;
    };
    uint64_t end = size;
    if (layout == Layout::Directory) {
        if (size < 8 + 20 || !readAt(reinterpret_cast<char *>(&offset), 8, size - 8) ||
            offset > size - 8)
            return refuse("too short or bad trailer");
        end = size - 8;
    }
    auto bytes = std::make_unique<std::string>(size_t(end - offset), '\0');
    if (!readAt(bytes->data(), bytes->size(), offset))
        return refuse("read error (the file shrank?)");
    Opened o(std::move(guard), std::move(bytes), magic, version, size, offset);
    if (!o.m_reader.ok())
        return refuse(o.m_reader.error());
    return o;
}

namespace {

bool endsWith(std::string_view s, std::string_view end)
{
    return s.size() >= end.size() && s.substr(s.size() - end.size()) == end;
}

// `<cache name>.tmp.XXXXXX` (mkostemp's six characters) of one of the cache kinds.
bool isCacheTemp(std::string_view name)
{
    const size_t at = name.rfind(".tmp.");
    if (at == std::string_view::npos || name.size() - at != 11)
        return false;
    const std::string_view base = name.substr(0, at);
    for (const char *ext : {".sidx", ".sevt", ".scc", ".slk"})
        if (endsWith(base, ext))
            return true;
    return false;
}

} // namespace

size_t CacheFile::removeStale(const std::string &written, std::string_view stem,
                              std::string_view ext)
{
    const size_t slash = written.rfind('/');
    if (slash == std::string::npos)
        return 0;
    const std::string dir = written.substr(0, slash);
    const std::string self = written.substr(slash + 1);
    DIR *d = ::opendir(dir.c_str());
    if (!d)
        return 0;
    const int64_t now = int64_t(::time(nullptr));
    size_t removed = 0;
    while (const dirent *e = ::readdir(d)) {
        const std::string_view name(e->d_name);
        const bool older = name != self && name.substr(0, stem.size()) == stem &&
                           name.size() > stem.size() + ext.size() && endsWith(name, ext);
        const bool temp = isCacheTemp(name);
        if (!older && !temp)
            continue;
        const std::string path = dir + "/" + std::string(name);
        struct stat st
        {
        };
        if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (temp && now - int64_t(st.st_mtime) < kOrphanAgeS)
            continue;
        if (::unlink(path.c_str()) == 0)
            ++removed;
    }
    ::closedir(d);
    return removed;
}

} // namespace syncline::load
