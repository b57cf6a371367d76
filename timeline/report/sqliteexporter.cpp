#include "timeline/report/sqliteexporter.h"

#include "timeline/model/collectiveinstances.h"
#include "timeline/report/csvexporter.h"
#include "timeline/report/diagnosis.h"

#include <sqlite3.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <cstdlib>
#include <unistd.h>

namespace syncline {

namespace {

const char *kSchema = R"(
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE workers(id INTEGER PRIMARY KEY, rank INTEGER, restart INTEGER, local_rank INTEGER,
  world_size INTEGER, host TEXT, boot_id TEXT, pid INTEGER, source_file TEXT, clock_method TEXT,
  clock_offset_ns INTEGER, clock_drift_ppm REAL, clock_bound_ns INTEGER, clock_band_ns INTEGER,
  clock_samples INTEGER, clock_domain INTEGER, events INTEGER, dropped_events INTEGER,
  closed_cleanly INTEGER);
CREATE TABLE threads(id INTEGER PRIMARY KEY, worker_id INTEGER, rank INTEGER, restart INTEGER,
  pid INTEGER, tid INTEGER, name TEXT, async INTEGER, category TEXT);
CREATE TABLE events(id INTEGER PRIMARY KEY, worker_id INTEGER, thread_id INTEGER, rank INTEGER,
  restart INTEGER, tid INTEGER, name TEXT, depth INTEGER, parent_id INTEGER, start_ns INTEGER,
  end_ns INTEGER, dur_ns INTEGER, local_start_ns INTEGER, local_end_ns INTEGER, status TEXT,
  kind TEXT, args TEXT);
CREATE TABLE counters(id INTEGER PRIMARY KEY, worker_id INTEGER, rank INTEGER, restart INTEGER,
  pid INTEGER, name TEXT, series TEXT, ts_ns INTEGER, local_ns INTEGER, value REAL);
CREATE TABLE links(id INTEGER PRIMARY KEY, kind TEXT, from_worker_id INTEGER, from_rank INTEGER,
  from_tid INTEGER, from_ns INTEGER, to_worker_id INTEGER, to_rank INTEGER, to_tid INTEGER,
  to_ns INTEGER);
CREATE TABLE steps(id INTEGER PRIMARY KEY, generation INTEGER, step INTEGER, start_ns INTEGER,
  end_ns INTEGER, dur_ns INTEGER, what_if_end_ns INTEGER, last_rank INTEGER);
CREATE TABLE collectives(id INTEGER PRIMARY KEY, instance INTEGER, name TEXT,
  process_group TEXT, sequence INTEGER, generation INTEGER, participants INTEGER,
  decided INTEGER, worker_id INTEGER, rank INTEGER, restart INTEGER, event_id INTEGER,
  arrival_ns INTEGER, end_ns INTEGER, wait_ns INTEGER, last INTEGER);
)";

const char *kIndexes = R"(
CREATE INDEX events_name ON events(name);
CREATE INDEX events_start ON events(start_ns);
CREATE INDEX events_rank_start ON events(rank, start_ns);
CREATE INDEX counters_name_ts ON counters(name, ts_ns);
CREATE INDEX collectives_instance ON collectives(instance);
CREATE INDEX collectives_rank ON collectives(rank);
)";

class Db
{
public:
    ~Db()
    {
        for (sqlite3_stmt *s : m_stmts)
            sqlite3_finalize(s);
        if (m_db)
            sqlite3_close(m_db);
    }
    bool open(const std::string &path, std::string *error)
    {
        if (sqlite3_open_v2(path.c_str(), &m_db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW,
                            nullptr) != SQLITE_OK)
            return fail(error);
        return true;
    }
    bool exec(const char *sql, std::string *error)
    {
        return sqlite3_exec(m_db, sql, nullptr, nullptr, nullptr) == SQLITE_OK || fail(error);
    }
    sqlite3_stmt *prepare(const char *sql, std::string *error)
    {
        sqlite3_stmt *s = nullptr;
        if (sqlite3_prepare_v2(m_db, sql, -1, &s, nullptr) != SQLITE_OK) {
            fail(error);
            return nullptr;
        }
        m_stmts.push_back(s);
        return s;
    }
    bool step(sqlite3_stmt *s, std::string *error)
    {
        const int rc = sqlite3_step(s);
        sqlite3_reset(s);
        return rc == SQLITE_DONE || fail(error);
    }
    bool fail(std::string *error)
    {
        *error = m_db ? sqlite3_errmsg(m_db) : "cannot open the database";
        return false;
    }

private:
    sqlite3 *m_db = nullptr;
    std::vector<sqlite3_stmt *> m_stmts;
};

// SQLite copies the text (SQLITE_TRANSIENT): callers pass temporaries (CsvExporter::status
// returns a string that dies before the statement is stepped).
void bindText(sqlite3_stmt *s, int i, std::string_view t)
{
    sqlite3_bind_text(s, i, t.data(), int(t.size()), SQLITE_TRANSIENT);
}

// One row per (instance, worker) of Diagnosis::arrivals (the diagnosis's instances and waits).
bool collectives(Db &db, sqlite3_stmt *kst, const Timeline &tl, const Diagnosis &d,
                 const std::vector<std::vector<int64_t>> &firstEventId, std::string *error)
{
    std::string group;
    int64_t groupSeq = 0;
    for (size_t r = 0; r < d.arrivals.size(); ++r) {
        const Diagnosis::Arrival &a = d.arrivals[r];
        const DiagnosisInstance &in = d.instanceList[a.instance];
        const Worker &wk = tl.workers[a.worker];
        sqlite3_bind_int64(kst, 1, int64_t(r));
        sqlite3_bind_int64(kst, 2, int64_t(a.instance));
        bindText(kst, 3, tl.names.name(in.nameId));
        // The group's text is in the event's args (the key holds only its hash).
        const int64_t args = wk.tracks[a.track].argsId(a.index);
        if ((in.key & CollectiveInstances::kGroupKey) && args >= 0 &&
            CollectiveInstances::groupAndSequence(tl.args[size_t(args)], group, groupSeq))
            bindText(kst, 4, group);
        else
            sqlite3_bind_null(kst, 4);
        sqlite3_bind_int64(kst, 5, in.sequence & CollectiveInstances::kIndexMask);
        sqlite3_bind_int64(kst, 6, in.sequence >> CollectiveInstances::kGenerationShift);
        sqlite3_bind_int(kst, 7, in.participants);
        sqlite3_bind_int(kst, 8, in.decided ? 1 : 0);
        sqlite3_bind_int64(kst, 9, int64_t(a.worker));
        sqlite3_bind_int(kst, 10, wk.info.rank);
        sqlite3_bind_int(kst, 11, wk.info.restart);
        sqlite3_bind_int64(kst, 12, firstEventId[a.worker][a.track] + int64_t(a.index));
        sqlite3_bind_int64(kst, 13, a.arrivalNs);
        sqlite3_bind_int64(kst, 14, a.endNs);
        sqlite3_bind_int64(kst, 15, a.waitNs);
        sqlite3_bind_int(kst, 16, int32_t(a.worker) == in.lastWorker ? 1 : 0);
        if (!db.step(kst, error))
            return false;
    }
    return true;
}

bool fill(Db &db, const Timeline &tl, ClockMode mode, const SqliteExporter::Meta &extra,
          std::string *error)
{
    if (!db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA page_size=8192;", error) ||
        !db.exec(kSchema, error) || !db.exec("BEGIN", error))
        return false;
    sqlite3_stmt *meta = db.prepare("INSERT INTO meta VALUES(?,?)", error);
    if (!meta)
        return false;
    SqliteExporter::Meta rows = {{"format", SqliteExporter::kFormat},
                                 {"clock_mode", mode == ClockMode::Raw ? "raw" : "corrected"},
                                 {"origin_ns", std::to_string(tl.originNs(mode))},
                                 {"events", std::to_string(tl.eventCount())},
                                 {"workers", std::to_string(tl.workers.size())}};
    rows.insert(rows.end(), extra.begin(), extra.end());
    for (const auto &[k, v] : rows) {
        bindText(meta, 1, k);
        bindText(meta, 2, v);
        if (!db.step(meta, error))
            return false;
    }
    sqlite3_stmt *wst = db.prepare(
        "INSERT INTO workers VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", error);
    sqlite3_stmt *tst = db.prepare("INSERT INTO threads VALUES(?,?,?,?,?,?,?,?,?)", error);
    sqlite3_stmt *est = db.prepare(
        "INSERT INTO events VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", error);
    sqlite3_stmt *cst = db.prepare("INSERT INTO counters VALUES(?,?,?,?,?,?,?,?,?,?)", error);
    sqlite3_stmt *lst = db.prepare("INSERT INTO links VALUES(?,?,?,?,?,?,?,?,?,?)", error);
    sqlite3_stmt *sst = db.prepare("INSERT INTO steps VALUES(?,?,?,?,?,?,?,?)", error);
    sqlite3_stmt *kst = db.prepare(
        "INSERT INTO collectives VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", error);
    if (!wst || !tst || !est || !cst || !lst || !sst || !kst)
        return false;
    int64_t eventId = 0, threadId = 0, counterId = 0;
    std::vector<std::vector<int64_t>> firstEventId(tl.workers.size()); // per worker, per track
    for (size_t w = 0; w < tl.workers.size(); ++w) {
        const Worker &wk = tl.workers[w];
        const WorkerInfo &in = wk.info;
        sqlite3_bind_int64(wst, 1, int64_t(w));
        sqlite3_bind_int(wst, 2, in.rank);
        sqlite3_bind_int(wst, 3, in.restart);
        sqlite3_bind_int(wst, 4, in.localRank);
        sqlite3_bind_int(wst, 5, in.worldSize);
        bindText(wst, 6, in.host);
        bindText(wst, 7, in.bootId);
        sqlite3_bind_int64(wst, 8, in.pid);
        bindText(wst, 9, in.sourceFile);
        bindText(wst, 10, sync::methodName(wk.clock.method));
        sqlite3_bind_int64(wst, 11, wk.clock.offsetNs);
        sqlite3_bind_double(wst, 12, wk.clock.driftPpm);
        sqlite3_bind_int64(wst, 13, wk.clock.boundNs);
        sqlite3_bind_int64(wst, 14, wk.clock.bandNs);
        sqlite3_bind_int(wst, 15, wk.clock.sampleCount);
        sqlite3_bind_int(wst, 16, wk.clock.domain);
        sqlite3_bind_int64(wst, 17, int64_t(wk.eventCount()));
        sqlite3_bind_int64(wst, 18, in.droppedEvents);
        sqlite3_bind_int(wst, 19, in.closedCleanly ? 1 : 0);
        if (!db.step(wst, error))
            return false;
        const sync::ClockMap &map = wk.map(mode);
        for (const EventTrack &t : wk.tracks) {
            sqlite3_bind_int64(tst, 1, threadId);
            sqlite3_bind_int64(tst, 2, int64_t(w));
            sqlite3_bind_int(tst, 3, in.rank);
            sqlite3_bind_int(tst, 4, in.restart);
            sqlite3_bind_int64(tst, 5, t.pid);
            sqlite3_bind_int64(tst, 6, t.tid);
            bindText(tst, 7, t.threadName);
            sqlite3_bind_int(tst, 8, t.async ? 1 : 0);
            bindText(tst, 9, t.category);
            if (!db.step(tst, error))
                return false;
            const int64_t first = eventId;
            firstEventId[w].push_back(first);
            for (size_t i = 0; i < t.count(); ++i, ++eventId) {
                const int64_t s = map.toGlobal(t.localStart[i]), e = map.toGlobal(t.localEnd[i]);
                const uint16_t f = t.flags[i];
                sqlite3_bind_int64(est, 1, eventId);
                sqlite3_bind_int64(est, 2, int64_t(w));
                sqlite3_bind_int64(est, 3, threadId);
                sqlite3_bind_int(est, 4, in.rank);
                sqlite3_bind_int(est, 5, in.restart);
                sqlite3_bind_int64(est, 6, t.tid);
                bindText(est, 7, tl.names.name(t.nameId[i]));
                sqlite3_bind_int(est, 8, t.depth[i]);
                if (t.parent[i] < 0)
                    sqlite3_bind_null(est, 9);
                else
                    sqlite3_bind_int64(est, 9, first + t.parent[i]);
                sqlite3_bind_int64(est, 10, s);
                sqlite3_bind_int64(est, 11, e);
                sqlite3_bind_int64(est, 12, e - s);
                sqlite3_bind_int64(est, 13, t.localStart[i]);
                sqlite3_bind_int64(est, 14, t.localEnd[i]);
                bindText(est, 15, CsvExporter::status(f));
                bindText(est, 16, (f & EventInstant)    ? "instant"
                                  : (f & EventInterval) ? "interval"
                                                        : "event");
                const int64_t args = t.argsId(uint32_t(i));
                if (args < 0)
                    sqlite3_bind_null(est, 17);
                else
                    bindText(est, 17, tl.args[size_t(args)]);
                if (!db.step(est, error))
                    return false;
            }
            ++threadId;
        }
        for (const CounterTrack &c : wk.counters)
            for (size_t i = 0; i < c.count(); ++i) {
                sqlite3_bind_int64(cst, 1, counterId++);
                sqlite3_bind_int64(cst, 2, int64_t(w));
                sqlite3_bind_int(cst, 3, in.rank);
                sqlite3_bind_int(cst, 4, in.restart);
                sqlite3_bind_int64(cst, 5, c.pid);
                bindText(cst, 6, c.name);
                bindText(cst, 7, c.series);
                sqlite3_bind_int64(cst, 8, map.toGlobal(c.localTs[i]));
                sqlite3_bind_int64(cst, 9, c.localTs[i]);
                sqlite3_bind_double(cst, 10, c.value[i]);
                if (!db.step(cst, error))
                    return false;
            }
    }
    for (const LinkTable::Group &g : tl.links.groups()) {
        const Worker &fw = tl.workers[g.fromWorker], &tw = tl.workers[g.toWorker];
        for (size_t i = g.begin; i < g.end; ++i) {
            const LinkTable::Ends &e = tl.links.ends(i);
            sqlite3_bind_int64(lst, 1, int64_t(i));
            bindText(lst, 2, g.kind == MessageLink::Flow ? "flow" : "message");
            sqlite3_bind_int64(lst, 3, g.fromWorker);
            sqlite3_bind_int(lst, 4, fw.info.rank);
            sqlite3_bind_int64(lst, 5, fw.tracks[g.fromTrack].tid);
            sqlite3_bind_int64(lst, 6, fw.map(mode).toGlobal(e.fromLocal));
            sqlite3_bind_int64(lst, 7, g.toWorker);
            sqlite3_bind_int(lst, 8, tw.info.rank);
            sqlite3_bind_int64(lst, 9, tw.tracks[g.toTrack].tid);
            sqlite3_bind_int64(lst, 10, tw.map(mode).toGlobal(e.toLocal));
            if (!db.step(lst, error))
                return false;
        }
    }
    DiagnoseQuery q;
    q.mode = mode;
    q.cells = false;
    q.arrivals = true;
    const Diagnosis d = Diagnoser::run(tl, q);
    for (size_t i = 0; i < d.steps.size(); ++i) {
        const DiagnosisStep &s = d.steps[i];
        sqlite3_bind_int64(sst, 1, int64_t(i));
        sqlite3_bind_int64(sst, 2, s.generation);
        sqlite3_bind_int64(sst, 3, s.index);
        sqlite3_bind_int64(sst, 4, s.beginNs);
        sqlite3_bind_int64(sst, 5, s.endNs);
        sqlite3_bind_int64(sst, 6, s.durationNs());
        sqlite3_bind_int64(sst, 7, s.whatIfEndNs);
        if (s.lastRankWorker >= 0 && size_t(s.lastRankWorker) < tl.workers.size())
            sqlite3_bind_int(sst, 8, tl.workers[size_t(s.lastRankWorker)].info.rank);
        else
            sqlite3_bind_null(sst, 8);
        if (!db.step(sst, error))
            return false;
    }
    return collectives(db, kst, tl, d, firstEventId, error) && db.exec(kIndexes, error) &&
           db.exec("COMMIT", error);
}

} // namespace

bool SqliteExporter::write(const Timeline &tl, ClockMode mode, const std::string &path,
                           std::string *error, const Meta &extra)
{
    // A fresh temporary name beside `path`, created exclusively (mkostemp: O_EXCL, so never an
    // existing file or a link), renamed over `path` when complete.
    std::string tmp = path + ".tmp.XXXXXX";
    const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
    if (fd < 0) {
        *error = "cannot create a temporary file beside " + path + ": " + std::strerror(errno);
        return false;
    }
    ::fchmod(fd, 0644); // mkostemp makes 0600; the database is as readable as the logs
    ::close(fd);
    bool ok;
    {
        Db db;
        ok = db.open(tmp, error) && fill(db, tl, mode, extra, error);
    }
    if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
        *error = "cannot rename " + tmp + " to " + path + ": " + std::strerror(errno);
        ok = false;
    }
    if (!ok) {
        std::remove(tmp.c_str());
        *error = path + ": " + *error;
    }
    return ok;
}

bool SqliteExporter::isCache(const std::string &path, const std::string &cacheKey,
                             std::string *why)
{
    auto no = [&](const std::string &m) {
        if (why)
            *why = m;
        return false;
    };
    struct stat st
    {
    };
    if (::lstat(path.c_str(), &st) != 0)
        return no("none yet");
    if (!S_ISREG(st.st_mode))
        return no("not a regular file");
    sqlite3 *h = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW,
                                   nullptr);
    std::string reason;
    auto one = [&](const char *sql, std::string &out) {
        sqlite3_stmt *q = nullptr;
        bool ok = sqlite3_prepare_v2(h, sql, -1, &q, nullptr) == SQLITE_OK &&
                  sqlite3_step(q) == SQLITE_ROW;
        if (ok) {
            const unsigned char *t = sqlite3_column_text(q, 0);
            out = t ? std::string(reinterpret_cast<const char *>(t),
                                  size_t(sqlite3_column_bytes(q, 0)))
                    : std::string();
        } else {
            reason = sqlite3_errmsg(h);
        }
        sqlite3_finalize(q);
        return ok;
    };
    std::string format, key, pages, pageSize;
    bool ok = rc == SQLITE_OK;
    if (!ok)
        reason = h ? sqlite3_errmsg(h) : "cannot open";
    ok = ok && one("SELECT value FROM meta WHERE key = 'format'", format) &&
         one("SELECT value FROM meta WHERE key = 'cache_key'", key) &&
         one("PRAGMA page_count", pages) && one("PRAGMA page_size", pageSize);
    sqlite3_close(h);
    if (!ok)
        return no("not a readable database: " + reason);
    if (format != kFormat)
        return no("another format (" + format + ")");
    if (key != cacheKey)
        return no("stale (the job's files or the options changed)");
    // A truncated or extended file: SQLite would meet the damage only when a query reads there.
    if (std::strtoll(pages.c_str(), nullptr, 10) * std::strtoll(pageSize.c_str(), nullptr, 10) !=
        int64_t(st.st_size))
        return no("its size does not match its pages (truncated or extended)");
    return true;
}

} // namespace syncline
