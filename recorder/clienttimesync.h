// ClientTimeSync — the time-sync side of one FileTimerClient (config `sync`, docs/config.md).
//
// With sync.host_server on rank 0 it runs the TimeServer on sync.server's port (clock: the
// client's clock); on every rank it runs a SyncClient against sync.server whose exchanges become
// `sync` records and whose messages become `note` records, both through the client's LogWriter.
// Failures (port in use, bad address, no server) are `note` records; recording is never
// affected. Only built when sync.enabled and a server is configured — named, or derived from
// torchrun's environment (sync.fromTorchrun: an `info` note says so, and the client waits quietly
// for rank 0's server to come up; TimerConfig::applyEnvironment).
//
// Shutdown order (FileTimerClient::close): stopClient() — the final burst is written — then the
// writer's close record, then stopServer() last so the other ranks' final bursts are answered.
// Threading: the constructor starts the threads; stopClient()/stopServer() from the owning
// client; estimate() from any thread. The clock and writer must outlive this object.
#pragma once

#include "recorder/clock.h"
#include "recorder/timerconfig.h"
#include "recorder/workeridentity.h"

#include <cstdint>
#include <memory>

namespace syncline::rec {

class LogWriter;
class SyncClient;
class TimeServer;

class ClientTimeSync
{
public:
    // sync.enabled and sync.server must be set.
    ClientTimeSync(const SyncSettings &sync, const WorkerIdentity &identity, const Clock &clock,
                   LogWriter &writer);
    ~ClientTimeSync();
    ClientTimeSync(const ClientTimeSync &) = delete;
    ClientTimeSync &operator=(const ClientTimeSync &) = delete;

    void stopClient();
    void stopServer();
    // The SyncClient's estimate of reference time at local time localNs; false before the first
    // successful burst.
    bool estimate(int64_t localNs, int64_t *globalNs, int64_t *boundNs) const;

private:
    void startServer(const SyncSettings &sync, const WorkerIdentity &identity);
    void startClient(const SyncSettings &sync);

    const Clock &m_clock;
    LogWriter &m_writer;
    std::unique_ptr<TimeServer> m_timeServer;
    std::unique_ptr<SyncClient> m_syncClient;
};

} // namespace syncline::rec
