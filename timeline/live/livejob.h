// LiveJob — a job followed while it runs: the incremental counterpart of JobLoader for
// `syncline attach`, File ▸ Attach and the Python binding.
//
// ingest() looks for new log files (JobInputs on the directory: new ranks and elastic restarts
// appear as new files) and reads only the bytes appended to each (LiveFile). commit() merges
// what was parsed into the Timeline (amortised cost per new record, see livefile.h), refreshes
// the clock correction when new sync samples (or workers) arrived — at most once per
// clockRefreshMs, with the display shift E of the first correction kept, so a worker's
// corrected times move by exactly the change in its own estimate (ClockCorrector::apply with
// a fixed shift) — and re-evaluates every worker's state:
//   Finished          a `close` record was read;
//   EndedWithoutClose no `close`, and its process is gone (same machine: kill(pid, 0) fails or
//                     the pid is a zombie), or — for a worker on another machine, whose pid
//                     cannot be checked — a later incarnation of its rank started or its peers
//                     all closed while it stayed silent (RemoteEnds), or its file has not grown
//                     for endedAfterS (0 = never), or its log was replaced by another
//                     incarnation's (see below); endReason() says which;
//   Silent            no record and no heartbeat for silentAfterS (default: the config's
//                     silent_after_s, 10 s) — stopped, hung, or its file system stalled;
//   Running           otherwise.
// "Now" (nowNs) is the latest corrected time of any record: max over workers of
// map(lastLocalNs). Open events of running and silent workers grow to now (in their own local
// ns, via ClockMap::toLocal; the end is now + 1 ns, so the open event contains the present
// instant and an event begun at the latest instant nests inside it) and turn overdue as soon as
// they pass their kind's expected maximum; those of finished or ended workers stop at the worker's
// last record, as in a load. Workers are kept sorted by (rank, restart, file); a new one shifts the
// indices of the ones after it (LiveUpdate::structureChanged). Only syncline logs are followed;
// Chrome traces in the directory are reported once and ignored. A followed file that another
// incarnation's log replaced (truncated and rewritten, or renamed over; LiveFile::ingest) keeps
// its worker and events, and that worker's state is frozen (Finished or EndedWithoutClose); the
// path is then read from its start by a new LiveFile, which becomes a new worker. At most
// LiveOptions::maxOpenFiles logs stay open between reads; the others are opened for each read
// (LiveFile::closeDescriptor), so a job of thousands of workers stays within the process's
// open-file limit. A read failure is reported once per file and reason. Threading: ingest()
// touches only the files' parsers and may run on a worker thread while the Timeline is read
// elsewhere; commit() mutates the Timeline and must run on the thread that owns it (the GUI thread
// in the viewer); the two must never run concurrently. timeline() may be shared (shared_ptr) but
// is only valid to read between commits on the owning thread.
#pragma once

#include "timeline/live/liveupdate.h"
#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/parse/messagelog.h"
#include "timeline/model/timeline.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace syncline {

class LiveFile;

class LiveJob
{
public:
    using Clock = std::chrono::steady_clock;

    explicit LiveJob(LiveOptions options);
    ~LiveJob();
    LiveJob(const LiveJob &) = delete;
    LiveJob &operator=(const LiveJob &) = delete;

    // "" when the job can be followed; else why not (no such directory).
    const std::string &fatalError() const { return m_fatal; }
    // Reads what was appended. rescan: look for new files too (cheap, but lists directories).
    // Returns the bytes read.
    int64_t ingest(bool rescan = true);
    // Merges into the Timeline; forceClock refreshes the clock correction now if anything
    // changed since the last refresh (e.g. before a final export).
    LiveUpdate commit(bool forceClock = false);
    LiveUpdate poll(bool rescan = true)
    {
        ingest(rescan);
        return commit();
    }

    std::shared_ptr<Timeline> timeline() const { return m_timeline; }
    size_t workerCount() const { return m_files.size(); }
    WorkerState state(size_t worker) const { return m_states[worker]; }
    // Why the worker counts as ended (EndedWithoutClose), "" in any other state.
    const std::string &endReason(size_t worker) const { return m_reasons[worker]; }
    double silentForS(size_t worker) const; // seconds since the worker's file last grew
    const std::string &sourceFile(size_t worker) const;
    int64_t nowNs() const { return m_now; } // latest corrected time, global ns
    uint64_t revision() const { return m_revision; }
    double silentAfterS() const { return m_silentAfterS; }
    // Directories holding the followed files (for a DirWatcher), the job directory first.
    std::vector<std::string> directories() const;
    Clock::time_point lastChange() const { return m_lastChange; }
    int64_t totalBytes() const;

    // Every worker's state, quiet time and file, in the Timeline's worker order.
    std::vector<LiveWorkerStatus> status() const;

private:
    void rescanInputs();
    void reportOnce(LoadProblem problem); // into m_ingestProblems unless said before
    void loadConfig(const std::string &path);
    bool addWorkers();
    bool refreshStates();
    bool refreshClocks(bool force);
    // Timeline::links again from every file's messages, when they are dirty and `force` or
    // clockRefreshMs passed since the last time; whether it did.
    bool refreshLinks(bool force);
    // Every file's message records, tracks as the workers' (LiveFile::messages).
    std::vector<load::MessageLog> currentMessages() const;
    int64_t latestRecordNs(ClockMode mode) const; // of any worker, global ns
    int64_t openEndFor(size_t worker) const;
    bool pidGone(size_t worker) const;
    bool isLocal(size_t worker) const; // same boot id or host name as this machine

    LiveOptions m_options;
    std::string m_fatal;
    std::shared_ptr<Timeline> m_timeline;
    std::vector<std::unique_ptr<LiveFile>> m_pending; // found, no record yet
    std::vector<std::unique_ptr<LiveFile>> m_files;   // parallel to m_timeline->workers
    std::vector<WorkerState> m_states;
    std::vector<std::string> m_reasons; // parallel to m_states: endReason()
    std::vector<std::string> m_known; // every path seen
    std::vector<std::string> m_dirs;
    std::string m_configPath;
    load::EventKindLookup m_kinds;
    double m_silentAfterS = 10.0;
    std::optional<int64_t> m_shift;
    bool m_clockDirty = false;
    size_t m_samplesSeen = 0;
    size_t m_messagesSeen = 0; // message records merged so far (all files)
    bool m_linksDirty = false; // Timeline::links is older than the records or the indices
    Clock::time_point m_lastLinks{};
    Clock::time_point m_lastClock{};
    Clock::time_point m_lastChange;
    int64_t m_now = 0;
    uint64_t m_revision = 0;
    std::string m_bootId;
    std::string m_host;
    bool m_chromeNoted = false;
    std::vector<std::string> m_inputProblemsSeen;         // JobInputs' problems, each reported once
    std::vector<LoadProblem> m_ingestProblems;            // found by ingest(), moved in by commit()
    std::unordered_set<std::string> m_ingestProblemsSeen; // read failures, each reported once
    size_t m_maxOpen = 16; // log files kept open between reads (LiveOptions::maxOpenFiles)
    int64_t m_bytesSinceCommit = 0;
    std::vector<char> m_scratch; // read buffer shared by the files (ingest() only)
};

} // namespace syncline
