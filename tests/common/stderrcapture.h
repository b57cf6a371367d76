// StderrCapture — redirects this process's stderr (fd 2) into a private temporary file for the
// capture's lifetime, so a test can check the one-line messages the recorder prints. restore()
// puts the original fd 2 back; text() restores and returns everything written meanwhile.
// Header-only, POSIX. Not thread-safe: one capture at a time per process.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

namespace syncline::test {

class StderrCapture
{
public:
    StderrCapture()
    {
        std::fflush(stderr);
        m_saved = ::dup(2);
        std::snprintf(m_path, sizeof m_path, "/tmp/syncline_stderr_XXXXXX");
        m_fd = ::mkstemp(m_path);
        ::dup2(m_fd, 2);
    }
    ~StderrCapture()
    {
        restore();
        ::close(m_fd);
        ::unlink(m_path);
    }
    StderrCapture(const StderrCapture &) = delete;
    StderrCapture &operator=(const StderrCapture &) = delete;

    void restore()
    {
        if (m_saved < 0)
            return;
        std::fflush(stderr);
        ::dup2(m_saved, 2);
        ::close(m_saved);
        m_saved = -1;
    }
    std::string text()
    {
        restore();
        std::ifstream in(m_path, std::ios::binary);
        return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }

private:
    char m_path[64];
    int m_fd = -1;
    int m_saved = -1;
};

} // namespace syncline::test
