// Small helpers shared by the recorder's tests: a config file in a temporary directory, and
// running a check in a forked child process.
// Threading: call from the test's main thread; inChild forks the whole process.
#pragma once

#include <QTemporaryDir>
#include <QTest>

#include <fstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

// ThreadSanitizer (the TSan half of `make sanitize`) cannot follow a forked child of a process
// that has threads (QtTest's watchdog, a recorder's writer) when the child starts threads of its
// own, as a recorder created in the child does: the runtime (GCC 12's libtsan) kills such a child
// ("starting new threads after multi-threaded fork is not supported"; with die_after_fork=0:
// "dup thread with used id"). The tests whose child records skip themselves under TSan, saying
// so; they run in the normal build and under ASan+UBSan (docs/reliability.md).
#if defined(__SANITIZE_THREAD__)
#define SYNCLINE_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SYNCLINE_UNDER_TSAN 1
#endif
#endif
#ifdef SYNCLINE_UNDER_TSAN
#define SYNCLINE_SKIP_RECORDING_CHILD_UNDER_TSAN()                                                 \
    QSKIP("its forked child starts a recorder thread, which TSan cannot follow after a fork of a " \
          "threaded process (runs in the normal and ASan builds)")
#else
#define SYNCLINE_SKIP_RECORDING_CHILD_UNDER_TSAN() static_cast<void>(0)
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SYNCLINE_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYNCLINE_UNDER_ASAN 1
#endif
#endif

namespace syncline::test {

// How much slower instrumented code runs: latency bounds that allow for scheduling (not the
// behaviour checked) are multiplied by it, so the sanitizer builds test the same behaviour.
#if defined(SYNCLINE_UNDER_TSAN)
inline constexpr double kSanitizerSlowdown = 4.0;
#elif defined(SYNCLINE_UNDER_ASAN)
inline constexpr double kSanitizerSlowdown = 2.0;
#else
inline constexpr double kSanitizerSlowdown = 1.0;
#endif

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
