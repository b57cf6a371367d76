// openFileLimit — the process's limit on open file descriptors (RLIMIT_NOFILE), the one place
// that raises it.
//
// A job of a thousand workers is a thousand logs; the default soft limit (1024 on most
// systems) is below what a load or a follower may need at once, while the hard limit (what an
// unprivileged process may raise its soft limit to) is usually far above. The entry points
// that load or follow jobs (the `syncline` executable, the Python module's loads) call
// raiseOpenFileLimit() once at their start; the libraries never change the limit themselves.
// Threading: call from one thread (setrlimit is process-wide); openFileLimit() from any.
// Header-only (two system calls): it is the loader's public header and has no stage of its own.
#pragma once

#include <cstddef>
#include <limits>
#include <sys/resource.h>

#ifdef __APPLE__
#include <climits> // OPEN_MAX
#endif

namespace syncline {

namespace detail {
inline size_t rlimitAsSize(rlim_t v)
{
    return v == RLIM_INFINITY ? std::numeric_limits<size_t>::max() : size_t(v);
}
} // namespace detail

// The soft limit in force (a large number when unlimited).
inline size_t openFileLimit()
{
    struct rlimit rl
    {
    };
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    return detail::rlimitAsSize(rl.rlim_cur);
}

// Raises the soft limit to the hard limit (on macOS to OPEN_MAX when the hard limit is
// unlimited). Returns the soft limit in force afterwards; failures leave it as it was.
inline size_t raiseOpenFileLimit()
{
    struct rlimit rl
    {
    };
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    rlim_t target = rl.rlim_max;
#ifdef __APPLE__
    // macOS refuses a soft limit above OPEN_MAX even when the hard limit is unlimited.
    if (target == RLIM_INFINITY || target > rlim_t(OPEN_MAX))
        target = rlim_t(OPEN_MAX);
#endif
    if (rl.rlim_cur != RLIM_INFINITY && (target == RLIM_INFINITY || rl.rlim_cur < target)) {
        struct rlimit raised = rl;
        raised.rlim_cur = target;
        if (::setrlimit(RLIMIT_NOFILE, &raised) == 0)
            rl = raised;
    }
    return detail::rlimitAsSize(rl.rlim_cur);
}

} // namespace syncline
