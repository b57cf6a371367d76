// FileKind — see filekind.h.
#include "recorder/filekind.h"

#include <sys/stat.h>

namespace syncline::rec {

const char *FileKind::name(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return "regular file";
    case S_IFIFO:
        return "FIFO";
    case S_IFSOCK:
        return "socket";
    case S_IFDIR:
        return "directory";
    case S_IFCHR:
        return "character device";
    case S_IFBLK:
        return "block device";
    case S_IFLNK:
        return "symbolic link";
    default:
        return "unknown type";
    }
}

std::string FileKind::notRegular(unsigned mode)
{
    return std::string("not a regular file (") + name(mode) + ")";
}

} // namespace syncline::rec
