#include "timeline/load/parse/filereader.h"

#include "recorder/filekind.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace syncline::load {

int FileReader::openRegular(const std::string &path, std::string *error)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (error)
            *error = "cannot open: " + std::string(std::strerror(errno));
        return -1;
    }
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (error)
            *error = rec::FileKind::notRegular(st.st_mode) + "; skipped";
        ::close(fd);
        return -1;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK); // plain reads from here on
    return fd;
}

FileReader::Mapping::~Mapping()
{
    if (m_data)
        ::munmap(m_data, m_size);
}

bool FileReader::Mapping::open(const std::string &path, std::string *error)
{
    const int fd = openRegular(path, error);
    if (fd < 0)
        return false;
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0 || st.st_size <= 0) {
        ::close(fd);
        return true; // empty (or unknown size): nothing mapped
    }
    void *p = ::mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    ::close(fd);
    if (p == MAP_FAILED) {
        if (error)
            *error = "cannot map: " + std::string(std::strerror(errno));
        return false;
    }
    ::madvise(p, size_t(st.st_size), MADV_SEQUENTIAL);
    m_data = p;
    m_size = size_t(st.st_size);
    return true;
}

bool FileReader::readAll(const std::string &path, std::string &out, std::string *error)
{
    const int fd = openRegular(path, error);
    if (fd < 0)
        return false;
    struct stat st
    {
    };
    ::fstat(fd, &st);
    out.clear();
    out.resize(size_t(st.st_size > 0 ? st.st_size : 0));
    size_t got = 0;
    while (true) {
        if (got == out.size())
            out.resize(out.size() + (1 << 16)); // the file may still be growing
        const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (error)
                *error = "read error: " + std::string(std::strerror(errno));
            ::close(fd);
            return false;
        }
        if (n == 0)
            break;
        got += size_t(n);
    }
    out.resize(got);
    ::close(fd);
    return true;
}

std::string FileReader::head(const std::string &path, size_t bytes)
{
    std::string out(bytes, '\0');
    const int fd = openRegular(path, nullptr);
    if (fd < 0)
        return {};
    const ssize_t n = ::read(fd, out.data(), bytes);
    ::close(fd);
    out.resize(n > 0 ? size_t(n) : 0);
    return out;
}

} // namespace syncline::load
