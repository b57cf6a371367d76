// `syncline timeserver` — runs the job's reference clock as a standalone process (recorder's
// TimeServer on CLOCK_MONOTONIC_RAW) until SIGINT or SIGTERM, printing its counters every
// --stats-interval seconds (0.1..86400) and once at exit. SIGPIPE is ignored: when stdout's
// reader goes away the stats output stops (one line on stderr) and the clock keeps serving.
#include "command.h"

#include "recorder/clock.h"
#include "recorder/syncprotocol.h"
#include "recorder/timeserver.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

namespace syncline::app {

namespace {

constexpr double kMinStatsIntervalS = 0.1;
constexpr double kMaxStatsIntervalS = 86400.0; // one day

struct Args
{
    rec::TimeServerOptions server;
    double statsInterval = 60.0;
};

// False once stdout is unwritable (EPIPE: its reader went away; ENOSPC ...): said once on
// stderr, and nothing more is printed — the server goes on.
bool g_statsOutput = true;

void printCounters(const char *when, const rec::TimeServerCounters &c)
{
    if (!g_statsOutput)
        return;
    const int n = std::printf("timeserver %s: served %llu, malformed %llu, foreign %llu, wrong version %llu, "
                "token mismatch %llu, send errors %llu\n",
                when, (unsigned long long)c.served, (unsigned long long)c.malformed,
                (unsigned long long)c.foreign, (unsigned long long)c.wrongVersion,
                (unsigned long long)c.tokenMismatch, (unsigned long long)c.sendErrors);
    if (n < 0 || std::fflush(stdout) != 0 || std::ferror(stdout)) {
        g_statsOutput = false;
        std::fprintf(stderr,
                     "syncline timeserver: writing to stdout failed: %s; stats output stopped "
                     "(the server goes on)\n",
                     std::strerror(errno));
    }
}

// Parses the arguments; returns -1 to go on, otherwise the exit status.
int parseArgs(int argc, char **argv, Args *a)
{
    a->server.port = rec::syncproto::kDefaultPort;
    if (const char *t = std::getenv("SYNCLINE_TIME_TOKEN"))
        a->server.token = t;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&](const char *name) -> const char * {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "syncline timeserver: %s needs a value\n", name);
                return nullptr;
            }
            return argv[++i];
        };
        const char *v = nullptr;
        char *end = nullptr;
        if (arg == "--port") {
            if (!(v = value("--port")))
                return 2;
            const long p = std::strtol(v, &end, 10);
            if (*end || p < 0 || p > 65535) {
                std::fprintf(stderr, "syncline timeserver: --port: expected 0..65535, got '%s'\n",
                             v);
                return 2;
            }
            a->server.port = int(p);
        } else if (arg == "--bind") {
            if (!(v = value("--bind")))
                return 2;
            a->server.bindAddress = v;
        } else if (arg == "--token") {
            if (!(v = value("--token")))
                return 2;
            a->server.token = v;
        } else if (arg == "--stats-interval") {
            if (!(v = value("--stats-interval")))
                return 2;
            a->statsInterval = std::strtod(v, &end);
            // NaN fails both comparisons; inf and 1e300 would overflow the timespec (and make
            // sigtimedwait() fail at once, forever), 1e-10 would flood stdout.
            if (end == v || *end ||
                !(a->statsInterval >= kMinStatsIntervalS && a->statsInterval <= kMaxStatsIntervalS)) {
                std::fprintf(stderr,
                             "syncline timeserver: --stats-interval: expected seconds in "
                             "0.1..86400, got '%s'\n",
                             v);
                return 2;
            }
        } else if (arg == "--help" || arg == "-h") {
            std::printf("usage: syncline timeserver [--port P] [--bind ADDR] [--token T] "
                        "[--stats-interval S]\n(more: syncline help timeserver)\n");
            return 0;
        } else {
            std::fprintf(stderr, "syncline timeserver: unknown argument '%s'\n", arg.c_str());
            return 2;
        }
    }
    return -1;
}

int runTimeServer(int argc, char **argv)
{
    Args args;
    if (int rc = parseArgs(argc, argv, &args); rc >= 0)
        return rc;
    // Block the stop signals before the server thread exists, so only sigtimedwait() sees them.
    sigset_t stopSignals;
    sigemptyset(&stopSignals);
    sigaddset(&stopSignals, SIGINT);
    sigaddset(&stopSignals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stopSignals, nullptr);
    std::signal(SIGPIPE, SIG_IGN); // a closed stdout is a write error, not the server's death

    const rec::Clock clock; // CLOCK_MONOTONIC_RAW, never transformed: this is the reference
    rec::TimeServer server(args.server, [&clock] { return clock.now(); });
    std::string error;
    if (!server.start(&error)) {
        std::fprintf(stderr, "syncline timeserver: %s\n", error.c_str());
        return 1;
    }
    std::printf("timeserver listening on %s port %d (UDP), boot hash %016llx, token %s; "
                "SIGINT/SIGTERM to stop\n",
                args.server.bindAddress.c_str(), server.port(),
                (unsigned long long)server.bootHash(), args.server.token.empty() ? "none" : "set");
    std::fflush(stdout); // a failure shows at the first stats line
    timespec every;
    every.tv_sec = time_t(args.statsInterval);
    every.tv_nsec = long((args.statsInterval - double(every.tv_sec)) * 1e9);
    for (;;) {
        const int sig = sigtimedwait(&stopSignals, nullptr, &every);
        if (sig == SIGINT || sig == SIGTERM)
            break;
        if (sig < 0 && errno == EAGAIN)
            printCounters("stats", server.counters());
        else if (sig < 0 && errno != EINTR) {
            std::fprintf(stderr, "syncline timeserver: waiting for signals failed: %s\n",
                         std::strerror(errno));
            break;
        }
    }
    server.stop();
    printCounters("stopped", server.counters());
    return 0;
}

Command makeTimeServerCommand()
{
    Command c;
    c.name = "timeserver";
    c.synopsis = "timeserver [--port P] [--bind ADDR] [--token T] [--stats-interval S]";
    c.help =
        "Runs the reference clock of a job: answers the recorders' UDP time requests (see\n"
        "docs/timeserver.md) until SIGINT or SIGTERM.\n\n"
        "  --port P             UDP port (default 29400; 0 = any free port, printed at start)\n"
        "  --bind ADDR          address to listen on (default 0.0.0.0; '::' for IPv6)\n"
        "  --token T            answer only workers configured with this job token\n"
        "                       (default: env SYNCLINE_TIME_TOKEN, else no token)\n"
        "  --stats-interval S   print the counters every S seconds, 0.1..86400 (default 60)\n\n"
        "Workers find it through timer_config.json `sync.server` or env SYNCLINE_TIME_SERVER.\n"
        "Run it on a machine that outlives the job: its clock is the job's global time.";
    c.run = runTimeServer;
    return c;
}

} // namespace

SYNCLINE_REGISTER_COMMAND(makeTimeServerCommand());

} // namespace syncline::app
