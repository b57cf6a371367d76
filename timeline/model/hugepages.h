// HugePages — anonymous memory for large arrays and buffers, mapped on a 2 MiB boundary and
// advised for transparent huge pages (MADV_HUGEPAGE), so filling it takes one page fault per
// 2 MiB instead of one per 4 KiB. A fault is what touching fresh memory costs: ~5–15 µs each on
// a virtual machine, so a 15 MB buffer in 4 KiB pages costs more to fill than to parse. Where the
// system gives no huge pages the memory is ordinary 4 KiB pages, never worse. Fresh mappings
// read as zeros. The one place such mappings are made (event buffers, the args arena, the
// Python columns).
// Threading: free functions; any thread.
#pragma once

#include <cstddef>

namespace syncline::hugepages {

inline constexpr size_t kHugePage = size_t(2) << 20; // a transparent huge page on x86-64 and arm64

// `bytes` rounded up to whole huge pages.
inline size_t roundUp(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

// `bytes` (a multiple of kHugePage) of fresh memory starting on a kHugePage boundary and
// advised; nullptr when refused. Release it with unmap(p, bytes).
char *map(size_t bytes);
void unmap(char *p, size_t bytes);
// The advice again (after mremap grows a mapping); failure is harmless.
void advise(char *p, size_t bytes);

} // namespace syncline::hugepages
