// ClientTimeSync — see clienttimesync.h.
#include "recorder/clienttimesync.h"

#include "recorder/logwriter.h"
#include "recorder/syncclient.h"
#include "recorder/syncprotocol.h"
#include "recorder/timeserver.h"

namespace syncline::rec {

namespace {
// How long a worker of a torchrun job waits, quietly, for rank 0's server to come up: rank 0 may
// create its client later than the others (imports, a download only it does).
constexpr double kTorchrunQuietStartS = 60.0;
} // namespace

ClientTimeSync::ClientTimeSync(const SyncSettings &sync, const WorkerIdentity &identity,
                               const Clock &clock, LogWriter &writer)
    : m_clock(clock), m_writer(writer)
{
    if (sync.fromTorchrun)
        m_writer.appendNote("info", "no time server named: using the job's own, " + *sync.server +
                                        " (torchrun's MASTER_ADDR, UDP port MASTER_PORT), served "
                                        "by rank 0");
    if (sync.hostServer && identity.rank == 0)
        startServer(sync, identity);
    startClient(sync);
}

ClientTimeSync::~ClientTimeSync() = default;

void ClientTimeSync::startServer(const SyncSettings &sync, const WorkerIdentity &identity)
{
    TimeServerOptions opts;
    opts.token = sync.token;
    opts.bootId = identity.bootId;
    if (sync.fromTorchrun && sync.server->front() == '[')
        opts.bindAddress = "::"; // MASTER_ADDR is an IPv6 address
    std::string host, error;
    // The port as the SyncClient reads `server` ("host", "host:port", "[v6]:port").
    if (!syncproto::splitHostPort(*sync.server, syncproto::kDefaultPort, false, &host, &opts.port,
                                  &error)) {
        m_writer.appendNote("warning", "time server not started: sync.server " + error);
        return;
    }
    const Clock *clock = &m_clock;
    m_timeServer = std::make_unique<TimeServer>(opts, [clock] { return clock->now(); });
    if (m_timeServer->start(&error))
        m_writer.appendNote("info",
                            "time server started on port " + std::to_string(m_timeServer->port()));
    else
        m_writer.appendNote("warning", "time server not started: " + error);
}

void ClientTimeSync::startClient(const SyncSettings &sync)
{
    SyncClientOptions opts;
    opts.server = *sync.server;
    opts.burstSize = sync.burstSize;
    opts.intervalS = sync.intervalS;
    opts.timeoutMs = sync.timeoutMs;
    opts.token = sync.token;
    // The job's own server (torchrun, rank 0) may start after this worker: quiet for a while.
    opts.quietStartS = sync.fromTorchrun ? kTorchrunQuietStartS : 0.0;
    if (sync.fromTorchrun)
        opts.serverOrigin = " (the job's own: torchrun's MASTER_ADDR, UDP port MASTER_PORT, served "
                            "by rank 0; name one with SYNCLINE_TIME_SERVER or sync.server)";
    LogWriter *writer = &m_writer;
    // Accepts onMessage(msg) and onMessage(level, msg): each becomes a `note` record.
    opts.onMessage = [writer](const auto &...parts) {
        const std::string text[] = {parts...};
        if constexpr (sizeof...(parts) == 2)
            writer->appendNote(text[0], text[1]);
        else
            writer->appendNote("warning", text[0]);
    };
    const Clock *clock = &m_clock;
    m_syncClient = std::make_unique<SyncClient>(
        opts, [clock] { return clock->now(); },
        [writer](const SyncExchange &x) {
            writer->appendSync(x.burst, x.seq, x.ref, x.t1, x.t2, x.t3, x.t4);
        });
    m_syncClient->start();
}

void ClientTimeSync::stopClient()
{
    m_syncClient->stop();
}

void ClientTimeSync::stopServer()
{
    if (m_timeServer)
        m_timeServer->stop();
}

bool ClientTimeSync::estimate(int64_t localNs, int64_t *globalNs, int64_t *boundNs) const
{
    return m_syncClient->estimate(localNs, globalNs, boundNs);
}

} // namespace syncline::rec
