// HugePages — see hugepages.h.
#include "timeline/model/hugepages.h"

#include <cstdint>
#include <sys/mman.h>

namespace syncline::hugepages {

char *map(size_t bytes)
{
    // One huge page more than asked, then the parts before the boundary and after the end given
    // back, so that the mapping starts on a 2 MiB boundary.
    void *p = ::mmap(nullptr, bytes + kHugePage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return nullptr;
    char *base = static_cast<char *>(p);
    char *aligned = reinterpret_cast<char *>(
        (reinterpret_cast<uintptr_t>(base) + kHugePage - 1) & ~uintptr_t(kHugePage - 1));
    if (aligned > base)
        ::munmap(base, size_t(aligned - base));
    const size_t tail = size_t(base + bytes + kHugePage - (aligned + bytes));
    if (tail > 0)
        ::munmap(aligned + bytes, tail);
    advise(aligned, bytes);
    return aligned;
}

void unmap(char *p, size_t bytes)
{
    if (p)
        ::munmap(p, bytes);
}

void advise(char *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    ::madvise(p, bytes, MADV_HUGEPAGE); // advice only: without it the memory is used as is
#else
    (void)p, (void)bytes;
#endif
}

} // namespace syncline::hugepages
