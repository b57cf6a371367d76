// FileKind — what a file system object is, in words, for the messages that refuse a path that
// is not a regular file. A FIFO is the dangerous case: open() on it blocks until a peer opens
// the other end (forever, for a log nobody writes), so readers and the recorder open with
// O_NONBLOCK, check fstat() and refuse anything but a regular file (the recorder also accepts a
// character device such as /dev/null).
// Example: FileKind::notRegular(S_IFIFO) == "not a regular file (FIFO)".
// Threading: stateless.
#pragma once

#include <string>

namespace syncline::rec {

class FileKind
{
public:
    // "FIFO", "socket", "directory", "character device", "block device", "symbolic link",
    // "regular file", or "unknown type"; `mode` is a stat st_mode.
    static const char *name(unsigned mode);
    // "not a regular file (<name>)".
    static std::string notRegular(unsigned mode);
};

} // namespace syncline::rec
