// ClientRegistry — see clientregistry.h.
#include "recorder/clientregistry.h"

#include "recorder/filetimerclient.h"
#include "recorder/nametable.h"

#include <cstdlib>
#include <mutex>
#include <pthread.h>
#include <set>
#include <vector>

namespace syncline::rec {

namespace {

// Never destroyed: the atexit handler and late client destructors may run after static
// destruction has begun.
std::mutex &registryMutex()
{
    static auto *m = new std::mutex;
    return *m;
}

std::set<FileTimerClient *> &liveClients()
{
    static auto *s = new std::set<FileTimerClient *>;
    return *s;
}

} // namespace

void ClientRegistry::add(FileTimerClient *client)
{
    install();
    std::lock_guard<std::mutex> lock(registryMutex());
    liveClients().insert(client);
}

void ClientRegistry::remove(FileTimerClient *client)
{
    std::lock_guard<std::mutex> lock(registryMutex());
    liveClients().erase(client);
}

void ClientRegistry::closeAllAtExit()
{
    std::vector<FileTimerClient *> live;
    {
        std::lock_guard<std::mutex> lock(registryMutex());
        live.assign(liveClients().begin(), liveClients().end());
    }
    // close() does nothing for clients created before a fork() (in the child).
    for (FileTimerClient *c : live)
        c->close();
}

void ClientRegistry::install()
{
    static std::once_flag once;
    std::call_once(once, [] {
        std::atexit(closeAllAtExit);
        // Hold the registry and name-table locks across fork() so that the child never
        // inherits them locked by a thread that does not exist there.
        pthread_atfork(
            [] {
                registryMutex().lock();
                NameTable::instance().lockForFork();
            },
            [] {
                NameTable::instance().unlockAfterFork();
                registryMutex().unlock();
            },
            [] {
                s_forkGeneration.fetch_add(1);
                NameTable::instance().unlockAfterFork();
                registryMutex().unlock();
            });
    });
}

} // namespace syncline::rec
