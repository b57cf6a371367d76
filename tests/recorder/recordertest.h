// Small helpers shared by the recorder's tests: a config file in a temporary directory, and
// running a check in a forked child process.
// Threading: call from the test's main thread; inChild forks the whole process.
#pragma once

#include <QTemporaryDir>

#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace syncline::test {

// Writes `text` as timer_config.json in `dir`; returns its path.
inline std::string writeConfig(const QTemporaryDir &dir, const std::string &text)
{
    const std::string path = dir.filePath("timer_config.json").toStdString();
    std::ofstream(path) << text;
    return path;
}

// Runs fn in a forked child; returns its exit status (0 = fn returned true).
template <class F> int inChild(F fn)
{
    const pid_t pid = fork();
    if (pid == 0)
        _exit(fn() ? 0 : 1);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

} // namespace syncline::test
