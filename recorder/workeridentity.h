// WorkerIdentity — who this process is in the job, read from the launcher's environment.
//
// torchrun / torchelastic variables first (RANK, LOCAL_RANK, WORLD_SIZE, GROUP_RANK, ROLE_NAME,
// TORCHELASTIC_RESTART_COUNT, TORCHELASTIC_RUN_ID); MPI fallbacks (OMPI_COMM_WORLD_RANK /
// PMI_RANK, OMPI_COMM_WORLD_SIZE / PMI_SIZE, OMPI_COMM_WORLD_LOCAL_RANK / MPI_LOCALRANKID);
// rank 0 of 1 when none is set. SYNCLINE_HOST and SYNCLINE_BOOT_ID override the host name and
// boot id — a test/demo facility to emulate several hosts (clock domains) on one machine.
// Without them, host and bootId are this machine's (machineHostName(), machineBootId()), or
// "unknown" when it cannot be read. A malformed integer variable throws ConfigError naming the
// variable.
// Invariants: 0 <= rank < worldSize, localRank >= 0, restart >= 0.
// Threading: a plain value; the free functions are safe from any thread.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace syncline::rec {

struct WorkerIdentity
{
    using GetEnv = std::function<const char *(const char *)>;

    int64_t rank = 0;
    int64_t localRank = 0;
    int64_t worldSize = 1;
    int64_t groupRank = 0;
    std::string role = "default";
    int64_t restart = 0;
    std::string runId;
    std::string host;
    std::string bootId;
    int64_t pid = 0;

    // The identity of this process (pid from getpid()).
    static WorkerIdentity fromEnvironment(const GetEnv &getEnv);
    static WorkerIdentity fromEnvironment();
};

// This machine's clock domain and name, read from the system each call: the kernel's boot id
// (/proc/sys/kernel/random/boot_id, a UUID; one per boot, so one per CLOCK_MONOTONIC_RAW
// domain) and gethostname(). "" when unreadable. No environment override: SYNCLINE_BOOT_ID and
// SYNCLINE_HOST are applied by the callers that emulate hosts (fromEnvironment(), TimeServer).
std::string machineBootId();
std::string machineHostName();

} // namespace syncline::rec
