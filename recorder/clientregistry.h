// ClientRegistry — the process-wide set of live FileTimerClients, for the two process events a
// client cannot see by itself: normal exit (an atexit handler closes every client still alive,
// so each log ends with a `close` record) and fork() (the registry and NameTable mutexes are
// held across fork() so the child never inherits them locked by a thread it does not have, and
// the child's fork generation is bumped so clients created before fork() know they are
// disabled there).
//
// Invariant: forkGeneration() is 0 in the original process and grows by one in each fork
// child; a client records the generation it was created in and is enabled only while they match.
// Threading: add()/remove() from any thread (mutex); forkGeneration() is a lock-free load (it is
// read on the recording hot path).
#pragma once

#include <atomic>
#include <cstdint>

namespace syncline::rec {

class FileTimerClient;

class ClientRegistry
{
public:
    // Registers a client; the first call installs the atexit and pthread_atfork handlers.
    static void add(FileTimerClient *client);
    static void remove(FileTimerClient *client);
    static uint64_t forkGeneration(std::memory_order order = std::memory_order_seq_cst)
    {
        return s_forkGeneration.load(order);
    }

private:
    static void install();
    static void closeAllAtExit();

    static inline std::atomic<uint64_t> s_forkGeneration{0};
};

} // namespace syncline::rec
