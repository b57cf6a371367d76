#include "timeline/load/openfilelimit.h"

#include <limits>
#include <sys/resource.h>

#ifdef __APPLE__
#include <climits> // OPEN_MAX
#endif

namespace syncline {

namespace {

size_t asSize(rlim_t v)
{
    return v == RLIM_INFINITY ? std::numeric_limits<size_t>::max() : size_t(v);
}

} // namespace

size_t openFileLimit()
{
    struct rlimit rl
    {
    };
    if (::getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return 1024;
    return asSize(rl.rlim_cur);
}

size_t raiseOpenFileLimit()
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
    return asSize(rl.rlim_cur);
}

} // namespace syncline
