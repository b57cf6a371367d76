#include "timeline/live/livejob.h"

#include "recorder/timerconfig.h"
#include "recorder/workeridentity.h"
#include "timeline/live/livefile.h"
#include "timeline/load/build/clockcorrector.h"
#include "timeline/load/parse/jobinputs.h"
#include "timeline/live/remoteends.h"
#include "timeline/load/openfilelimit.h"
#include "timeline/load/build/workeradmission.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unistd.h>

namespace fs = std::filesystem;

namespace syncline {

using namespace load; // the loading stage's internals

namespace {

using Severity = LoadProblem::Severity;
constexpr size_t kMaxProblems = 10000;

// A zombie (exited, not yet reaped) still answers kill(pid, 0).
bool isZombie(int64_t pid)
{
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(in, line);
    const size_t paren = line.rfind(')');
    return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

double secondsSince(LiveJob::Clock::time_point t)
{
    return std::chrono::duration<double>(LiveJob::Clock::now() - t).count();
}

} // namespace

const char *workerStateName(WorkerState s)
{
    switch (s) {
    case WorkerState::Running:
        return "running";
    case WorkerState::Silent:
        return "silent";
    case WorkerState::Finished:
        return "finished cleanly";
    case WorkerState::EndedWithoutClose:
        return "ended without a closing record";
    }
    return "?";
}

LiveJob::LiveJob(LiveOptions options)
    : m_options(std::move(options)), m_timeline(std::make_shared<Timeline>()),
      m_lastChange(Clock::now()), m_bootId(rec::machineBootId()), m_host(rec::machineHostName())
{
    std::error_code ec;
    const auto status = fs::status(m_options.path, ec);
    if (ec || !fs::exists(status)) {
        m_fatal = m_options.path + ": no such file or directory";
        return;
    }
    const std::string dir =
        fs::is_directory(status) ? m_options.path : fs::path(m_options.path).parent_path().string();
    m_dirs.push_back(dir.empty() ? "." : dir);
    if (m_options.silentAfterS > 0)
        m_silentAfterS = m_options.silentAfterS;
    m_maxOpen = m_options.maxOpenFiles > 0 ? m_options.maxOpenFiles
                                           : std::max<size_t>(16, openFileLimit() / 4);
}

LiveJob::~LiveJob() = default;

std::vector<std::string> LiveJob::directories() const
{
    return m_dirs;
}

std::vector<LiveWorkerStatus> LiveJob::status() const
{
    std::vector<LiveWorkerStatus> out(m_files.size());
    for (size_t i = 0; i < m_files.size(); ++i)
        out[i] = {m_states[i], silentForS(i), m_files[i]->path(), m_reasons[i]};
    return out;
}

const std::string &LiveJob::sourceFile(size_t worker) const
{
    return m_files[worker]->path();
}

double LiveJob::silentForS(size_t worker) const
{
    return secondsSince(m_files[worker]->lastGrowth());
}

int64_t LiveJob::totalBytes() const
{
    int64_t n = 0;
    for (const auto &f : m_files)
        n += f->bytesRead();
    for (const auto &f : m_pending)
        n += f->bytesRead();
    return n;
}

void LiveJob::loadConfig(const std::string &path)
{
    m_configPath = path;
    try {
        auto config = std::make_shared<const rec::TimerConfig>(rec::TimerConfig::load(path));
        if (m_options.silentAfterS <= 0)
            m_silentAfterS = config->silentAfterS;
        m_kinds = EventKindLookup(std::move(config));
    } catch (const std::exception &e) {
        m_ingestProblems.push_back(
            {LoadProblem::Kind::ConfigUnusable, Severity::Error, path, 0, std::string("config not usable: ") + e.what()});
    }
}

void LiveJob::reportOnce(LoadProblem p)
{
    // A file that cannot be opened fails the same way on every read (20 ms apart): said once.
    if (m_ingestProblemsSeen.insert(p.toString()).second)
        m_ingestProblems.push_back(std::move(p));
}

void LiveJob::rescanInputs()
{
    JobInputs in = JobInputs::resolve({m_options.path});
    if (!in.configPath.empty() && m_configPath.empty())
        loadConfig(in.configPath);
    // What the inputs skipped (a FIFO, a dangling link, ...): said once, not on every rescan.
    for (LoadProblem &p : in.problems) {
        std::string key = p.toString();
        if (std::find(m_inputProblemsSeen.begin(), m_inputProblemsSeen.end(), key) !=
            m_inputProblemsSeen.end())
            continue;
        m_inputProblemsSeen.push_back(std::move(key));
        m_ingestProblems.push_back(std::move(p));
    }
    if (!in.chromeTraces.empty() && !m_chromeNoted) {
        m_chromeNoted = true;
        m_ingestProblems.push_back({LoadProblem::Kind::TracesNotFollowed, Severity::Info, in.chromeTraces.front(), 0,
                                    "Chrome traces are not followed live (open them instead)"});
    }
    for (const std::string &p : in.logs) {
        if (std::find(m_known.begin(), m_known.end(), p) != m_known.end())
            continue;
        m_known.push_back(p);
        m_pending.push_back(std::make_unique<LiveFile>(p));
        m_lastChange = Clock::now();
        std::string dir = fs::path(p).parent_path().string();
        if (dir.empty())
            dir = ".";
        if (std::find(m_dirs.begin(), m_dirs.end(), dir) == m_dirs.end())
            m_dirs.push_back(dir);
    }
}

int64_t LiveJob::ingest(bool rescan)
{
    if (!m_fatal.empty())
        return 0;
    if (rescan)
        rescanInputs();
    int64_t total = 0;
    std::vector<std::string> reborn; // paths another incarnation's log took (LiveFile::ingest)
    // Descriptors: the files that hold one keep it; once m_maxOpen are held, every other file
    // is opened for its read and closed after it, so a job of any size stays far below the
    // process's open-file limit (the rest of it is for the loader, the viewer and the exports).
    size_t held = 0;
    for (const auto &f : m_files)
        held += f->holdsDescriptor();
    for (const auto &f : m_pending)
        held += f->holdsDescriptor();
    auto read = [&](LiveFile &f) {
        const bool had = f.holdsDescriptor();
        const int64_t n = f.ingest(m_scratch, m_options.readChunkBytes);
        if (n < 0)
            reportOnce({LoadProblem::Kind::ReadError, f.skipped() ? Severity::Warning : Severity::Error, f.path(), 0, f.error()});
        else
            total += n;
        if (f.takeReplaced())
            reborn.push_back(f.path());
        if (!had && f.holdsDescriptor()) {
            if (held < m_maxOpen)
                ++held;
            else
                f.closeDescriptor();
        }
    };
    for (auto &f : m_files)
        read(*f);
    for (auto &f : m_pending)
        read(*f);
    // A replaced file that never had a record is no worker: drop it (its notes kept).
    for (size_t i = 0; i < m_pending.size();) {
        if (!m_pending[i]->replaced()) {
            ++i;
            continue;
        }
        for (LoadProblem &p : m_pending[i]->takeProblems())
            m_ingestProblems.push_back(std::move(p));
        m_pending.erase(m_pending.begin() + ptrdiff_t(i));
    }
    // The new incarnation is read from its start, as a file found by a rescan.
    for (size_t k = 0; k < reborn.size(); ++k) {
        auto f = std::make_unique<LiveFile>(std::string(reborn[k]));
        read(*f);
        m_pending.push_back(std::move(f));
    }
    if (total > 0 || !reborn.empty())
        m_lastChange = Clock::now();
    m_bytesSinceCommit += total;
    return total;
}

bool LiveJob::addWorkers()
{
    Timeline &tl = *m_timeline;
    bool added = false;
    for (size_t i = 0; i < m_pending.size();) {
        if (!m_pending[i]->hasRecords()) {
            ++i;
            continue;
        }
        std::unique_ptr<LiveFile> file = std::move(m_pending[i]);
        m_pending.erase(m_pending.begin() + ptrdiff_t(i));
        Worker w;
        w.info = file->parsed().worker.info;
        w.info.sourceFile = file->path();
        const size_t at =
            WorkerAdmission::admit(tl, std::move(w), file->parsed().rankKnown, tl.problems);
        m_files.insert(m_files.begin() + ptrdiff_t(at), std::move(file));
        m_states.insert(m_states.begin() + ptrdiff_t(at), WorkerState::Running);
        m_reasons.insert(m_reasons.begin() + ptrdiff_t(at), std::string());
        added = true;
    }
    if (added)
        m_clockDirty = true;
    return added;
}

bool LiveJob::isLocal(size_t i) const
{
    const WorkerInfo &info = m_files[i]->parsed().worker.info;
    return (!m_bootId.empty() && info.bootId == m_bootId) ||
           (!m_host.empty() && info.host == m_host);
}

bool LiveJob::pidGone(size_t i) const
{
    const WorkerInfo &info = m_files[i]->parsed().worker.info;
    if (!isLocal(i) || info.pid <= 0)
        return false;
    if (::kill(pid_t(info.pid), 0) != 0)
        return errno == ESRCH;
    return secondsSince(m_files[i]->lastGrowth()) > 0.5 && isZombie(info.pid);
}

bool LiveJob::refreshStates()
{
    bool changed = false;
    const size_t n = m_files.size();
    std::vector<WorkerState> states(n, WorkerState::Running);
    std::vector<std::string> reasons(n);
    std::vector<RemoteEnds::Input> remote(n);
    for (size_t i = 0; i < n; ++i) {
        const LiveFile &f = *m_files[i];
        const WorkerInfo &info = f.parsed().worker.info;
        const double quiet = secondsSince(f.lastGrowth());
        WorkerState &s = states[i];
        if (info.closedCleanly) {
            s = WorkerState::Finished;
        } else if (f.replaced()) { // its log's place was taken: this incarnation's log is over
            s = WorkerState::EndedWithoutClose;
            reasons[i] = "its log was replaced by another incarnation's";
        } else if (pidGone(i)) {
            s = WorkerState::EndedWithoutClose;
            reasons[i] = "its process is gone";
        } else if (m_options.endedAfterS > 0 && quiet > m_options.endedAfterS) {
            s = WorkerState::EndedWithoutClose;
            char text[96];
            std::snprintf(text, sizeof text, "no record for %.0f s (--ended-after)", quiet);
            reasons[i] = text;
        } else if (quiet > m_silentAfterS) {
            s = WorkerState::Silent;
        }
        const sync::ClockMap &map = m_timeline->map(i, ClockMode::Corrected);
        remote[i] = {&info,
                     s,
                     quiet,
                     isLocal(i),
                     map.toGlobal(info.firstLocalNs),
                     map.toGlobal(info.lastLocalNs)};
    }
    const std::vector<std::string> ends = RemoteEnds::reasons(remote);
    for (size_t i = 0; i < n; ++i) {
        if (!ends[i].empty()) {
            states[i] = WorkerState::EndedWithoutClose;
            reasons[i] = ends[i];
        }
        changed = changed || states[i] != m_states[i] || reasons[i] != m_reasons[i];
        m_states[i] = states[i];
        m_reasons[i] = std::move(reasons[i]);
    }
    return changed;
}

int64_t LiveJob::openEndFor(size_t i) const
{
    const int64_t last = m_files[i]->parsed().worker.info.lastLocalNs;
    if (m_states[i] == WorkerState::Finished || m_states[i] == WorkerState::EndedWithoutClose)
        return last;
    // One past now: an open event includes the present instant, so an event begun at the
    // latest instant nests inside the ones still open (half-open intervals).
    return std::max(last, m_timeline->map(i, ClockMode::Corrected).toLocal(m_now)) + 1;
}

bool LiveJob::refreshClocks(bool force)
{
    if (!m_clockDirty)
        return false;
    const auto now = Clock::now();
    if (!force && now - m_lastClock < std::chrono::milliseconds(m_options.clockRefreshMs))
        return false;
    Timeline &tl = *m_timeline;
    for (size_t i = 0; i < m_files.size(); ++i) {
        Worker &w = tl.workers[i];
        w.samples = m_files[i]->currentSamples(&w.refId);
        w.wallPairs = m_files[i]->parser().partial().worker.wallPairs;
    }
    const std::vector<MessageLog> messages = currentMessages();
    ClockCorrector::Options o;
    o.alignOn = m_options.alignOn;
    o.correct = m_options.correctClocks;
    o.alignCollectives = m_options.alignCollectives;
    o.wallClocks = m_options.wallClocks;
    if (o.wallClocks)
        tl.clockChoice = ClockChoice::Wall;
    int64_t used = 0;
    tl.clockNotes.clear();
    tl.causality = sync::CausalityReport();
    // One matching for the engine's pairs and the viewer's arrows (as JobLoader).
    std::vector<sync::MessagePair> pairs;
    if (o.correct)
        pairs = ClockCorrector::pairMessages(tl, messages, &tl.links);
    else
        tl.links = ClockCorrector::links(tl, messages);
    m_linksDirty = false;
    m_lastLinks = now;
    ClockCorrector::apply(tl, std::move(pairs), m_kinds, o, m_shift, &used);
    const bool haveUsed = std::any_of(tl.workers.begin(), tl.workers.end(), [](const Worker &w) {
        return w.clock.method != sync::ClockMethod::None;
    });
    if (!m_shift && haveUsed)
        m_shift = used;
    m_clockDirty = false;
    m_lastClock = now;
    return true;
}

std::vector<MessageLog> LiveJob::currentMessages() const
{
    std::vector<MessageLog> messages(m_files.size());
    for (size_t i = 0; i < m_files.size(); ++i)
        messages[i] = m_files[i]->messages();
    return messages;
}

bool LiveJob::refreshLinks(bool force)
{
    if (!m_linksDirty)
        return false;
    const auto now = Clock::now();
    if (!force && now - m_lastLinks < std::chrono::milliseconds(m_options.clockRefreshMs))
        return false;
    m_timeline->links = ClockCorrector::links(*m_timeline, currentMessages());
    m_linksDirty = false;
    m_lastLinks = now;
    return true;
}

int64_t LiveJob::latestRecordNs(ClockMode mode) const
{
    int64_t now = std::numeric_limits<int64_t>::min();
    for (size_t i = 0; i < m_files.size(); ++i)
        now = std::max(now,
                       m_timeline->toGlobal(i, m_files[i]->parsed().worker.info.lastLocalNs, mode));
    return m_files.empty() ? 0 : now;
}

LiveUpdate LiveJob::commit(bool forceClock)
{
    LiveUpdate u;
    Timeline &tl = *m_timeline;
    const size_t namesBefore = tl.names.size();
    u.newBytes = m_bytesSinceCommit;
    m_bytesSinceCommit = 0;
    u.structureChanged = addWorkers();
    u.statesChanged = refreshStates();
    m_now = latestRecordNs(ClockMode::Corrected);
    size_t samples = 0;
    bool anySamples = false;
    for (size_t i = 0; i < m_files.size(); ++i) {
        const LiveMergeStats s = m_files[i]->merge(tl.workers[i], tl, m_kinds, openEndFor(i));
        u.newEvents += s.newEvents;
        u.closedEvents += s.closedEvents;
        u.structureChanged = u.structureChanged || s.newTracks;
        u.countersChanged = u.countersChanged || s.newCounters || s.newCounterSamples > 0;
        u.newCounters = u.newCounters || s.newCounters;
        for (const auto &[track, from] : s.changedTracks)
            u.changedTracks.push_back({uint32_t(i), track, from});
        samples += m_files[i]->sampleCount();
        anySamples = anySamples || m_files[i]->sampleCount() > 0;
    }
    if (samples != m_samplesSeen || (!anySamples && u.newEvents > 0))
        m_clockDirty = true;
    m_samplesSeen = samples;
    // The arrows: new message records, or shifted worker / track indices (then at once: the
    // links' indices would name other tracks).
    size_t messageCount = 0;
    for (const auto &f : m_files)
        messageCount += f->parsed().messages.size();
    if (messageCount != m_messagesSeen || (u.structureChanged && !tl.links.empty()))
        m_linksDirty = true;
    m_messagesSeen = messageCount;
    const bool linksWereDirty = m_linksDirty;
    u.clockChanged = refreshClocks(forceClock);
    u.linksChanged =
        (linksWereDirty && !m_linksDirty) || refreshLinks(forceClock || u.structureChanged);
    if (u.clockChanged) {
        m_now = latestRecordNs(ClockMode::Corrected);
        for (size_t i = 0; i < m_files.size(); ++i)
            m_files[i]->growOpenEvents(tl.workers[i], tl, m_kinds, openEndFor(i));
    }
    tl.setLiveRange(ClockMode::Corrected, m_now);
    tl.setLiveRange(ClockMode::Raw, latestRecordNs(ClockMode::Raw));
    for (auto &f : m_files)
        for (LoadProblem &p : f->takeProblems())
            if (tl.problems.size() < kMaxProblems)
                tl.problems.push_back(std::move(p));
    for (LoadProblem &p : m_ingestProblems)
        if (tl.problems.size() < kMaxProblems)
            tl.problems.push_back(std::move(p));
    m_ingestProblems.clear();
    u.newNames = tl.names.size() - namesBefore;
    m_kinds.describe(tl);
    if (u.changed())
        ++m_revision;
    u.revision = m_revision;
    return u;
}

} // namespace syncline
