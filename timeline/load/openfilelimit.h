// openFileLimit — the process's limit on open file descriptors (RLIMIT_NOFILE), the one place
// that raises it.
//
// A job of a thousand workers is a thousand logs; the default soft limit (1024 on most
// systems) is below what a load or a follower may need at once, while the hard limit (what an
// unprivileged process may raise its soft limit to) is usually far above. The entry points
// that load or follow jobs (the `syncline` executable, the Python module's loads) call
// raiseOpenFileLimit() once at their start; the libraries never change the limit themselves.
// Threading: call from one thread (setrlimit is process-wide); openFileLimit() from any.
#pragma once

#include <cstddef>

namespace syncline {

// Raises the soft limit to the hard limit (on macOS to OPEN_MAX when the hard limit is
// unlimited). Returns the soft limit in force afterwards; failures leave it as it was.
size_t raiseOpenFileLimit();
// The soft limit in force (a large number when unlimited).
size_t openFileLimit();

} // namespace syncline
