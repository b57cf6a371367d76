// FuzzTempFile — one scratch file per fuzzing process, rewritten for every input, for the
// readers that take a path (ChromeTraceParser, JobLoader). Lives under $TMPDIR (else /tmp) in a
// private directory, removed at exit. Threading: one per process (libFuzzer runs one input at a
// time per process).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <unistd.h>

class FuzzTempFile
{
public:
    explicit FuzzTempFile(const std::string &name)
    {
        const char *tmp = std::getenv("TMPDIR");
        std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/syncline-fuzz.XXXXXX";
        if (!::mkdtemp(dir.data()))
            std::abort();
        m_dir = dir;
        m_path = m_dir + "/" + name;
    }
    ~FuzzTempFile() { std::filesystem::remove_all(m_dir); }
    const std::string &path() const { return m_path; }
    const std::string &dir() const { return m_dir; }
    void write(std::string_view text) const
    {
        std::ofstream out(m_path, std::ios::binary | std::ios::trunc);
        out.write(text.data(), std::streamsize(text.size()));
        if (!out)
            std::abort(); // the harness, not the code under test, failed
    }

private:
    std::string m_dir;
    std::string m_path;
};
