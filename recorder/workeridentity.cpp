// WorkerIdentity — see workeridentity.h.
#include "recorder/workeridentity.h"

#include "recorder/timerconfig.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace syncline::rec {

namespace {

// The first variable of `names` that is set (non-empty), parsed as a non-negative integer.
bool envInt(const WorkerIdentity::GetEnv &getEnv, std::initializer_list<const char *> names,
            int64_t *out)
{
    for (const char *name : names) {
        const char *v = getEnv(name);
        if (!v || !*v)
            continue;
        char *end = nullptr;
        errno = 0;
        const long long x = std::strtoll(v, &end, 10);
        if (*end != '\0' || errno == ERANGE || x < 0)
            throw ConfigError(std::string("environment ") + name +
                              ": expected a non-negative integer, got \"" + v + "\"");
        *out = x;
        return true;
    }
    return false;
}

std::string envString(const WorkerIdentity::GetEnv &getEnv, const char *name,
                      const std::string &fallback)
{
    const char *v = getEnv(name);
    return v && *v ? std::string(v) : fallback;
}

std::string orUnknown(std::string value)
{
    return value.empty() ? "unknown" : value;
}

} // namespace

std::string machineBootId()
{
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(in, id);
    return id;
}

std::string machineHostName()
{
    char buf[256] = {};
    if (::gethostname(buf, sizeof buf - 1) != 0)
        return {};
    return buf;
}

WorkerIdentity WorkerIdentity::fromEnvironment(const GetEnv &getEnv)
{
    WorkerIdentity w;
    envInt(getEnv, {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK"}, &w.rank);
    envInt(getEnv, {"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"}, &w.localRank);
    envInt(getEnv, {"WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}, &w.worldSize);
    envInt(getEnv, {"GROUP_RANK"}, &w.groupRank);
    envInt(getEnv, {"TORCHELASTIC_RESTART_COUNT"}, &w.restart);
    if (w.worldSize < 1)
        throw ConfigError("environment WORLD_SIZE: expected an integer >= 1, got \"" +
                          std::to_string(w.worldSize) + "\"");
    if (w.rank >= w.worldSize)
        throw ConfigError("environment: rank " + std::to_string(w.rank) +
                          " is not below world size " + std::to_string(w.worldSize));
    w.role = envString(getEnv, "ROLE_NAME", "default");
    w.runId = envString(getEnv, "TORCHELASTIC_RUN_ID", "");
    w.host = envString(getEnv, "SYNCLINE_HOST", "");
    if (w.host.empty())
        w.host = orUnknown(machineHostName());
    w.bootId = envString(getEnv, "SYNCLINE_BOOT_ID", "");
    if (w.bootId.empty())
        w.bootId = orUnknown(machineBootId());
    w.pid = getpid();
    return w;
}

WorkerIdentity WorkerIdentity::fromEnvironment()
{
    return fromEnvironment([](const char *name) -> const char * { return std::getenv(name); });
}

} // namespace syncline::rec
