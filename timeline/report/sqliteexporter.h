// SqliteExporter — the timeline as an SQLite database (`syncline export --sqlite`, `syncline
// query`, Python `Timeline.query`). The schema is a contract (docs/cli.md "SQLite schema"),
// named like Perfetto's trace processor where the concepts match; meta.format carries its
// version ("syncline-sqlite/2").
//
//   meta(key TEXT PRIMARY KEY, value TEXT)   format, clock_mode, origin_ns, events, workers
//   workers(id, rank, restart, local_rank, world_size, host, boot_id, pid, source_file,
//           clock_method, clock_offset_ns, clock_drift_ppm, clock_bound_ns, clock_band_ns,
//           clock_samples, clock_domain, events, dropped_events, closed_cleanly)
//   threads(id, worker_id, rank, restart, pid, tid, name, async, category)
//   events(id, worker_id, thread_id, rank, restart, tid, name, depth, parent_id, start_ns,
//          end_ns, dur_ns, local_start_ns, local_end_ns, status, kind, args)
//   counters(id, worker_id, rank, restart, pid, name, series, ts_ns, local_ns, value)
//   links(id, kind, from_worker_id, from_rank, from_tid, from_ns, to_worker_id, to_rank,
//         to_tid, to_ns)
//   steps(id, generation, step, start_ns, end_ns, dur_ns, what_if_end_ns, last_rank)
//   collectives(id, instance, name, process_group, sequence, generation, participants, decided,
//               worker_id, rank, restart, event_id, arrival_ns, end_ns, wait_ns, last)
// ids are dense from 0 in the events CSV's order (workers by (rank, restart), threads, events by
// start); parent_id is an events.id or NULL; times are global ns of the clock mode, absolute
// (origin_ns in meta: the zero of the CSV and `stats`); status is the CSV's word (complete,
// overdue, open); kind event / interval / instant; args the event's JSON object text or NULL.
// Indexes: events(name), events(start_ns), events(rank, start_ns), counters(name, ts_ns),
// collectives(instance), collectives(rank).
// Steps are Diagnoser's (report/diagnosis.h: the detected step name, per step its span over
// the ranks, its what-if end with the top culprit fixed); so are the collectives: one row per
// (instance, worker) of Diagnosis::arrivals (arrival = global begin, wait = last arrival −
// arrival, last = 1 for the last arriver; event_id its event; process_group the args' group
// text when the instance is keyed by group, else NULL and sequence is the k-th of its name).
// The database is written to `path` through a temporary file beside it created exclusively
// (mkostemp: never an existing file or a link), then renamed over `path`; on failure nothing is
// left behind.
// A cache (`syncline query`'s database beside the job's index) carries its key in
// meta.cache_key; isCache() says whether a file is such a database for that key, checking what
// can be checked without reading it all: a regular file (not a link), SQLite, this format, the
// key, and a size equal to its pages (truncated or extended files are refused).
// Threading: reads the Timeline only; any thread.
#pragma once

#include "timeline/model/timeline.h"

#include <string>

namespace syncline {

class SqliteExporter
{
public:
    static constexpr const char *kFormat = "syncline-sqlite/2";
    // Extra meta rows (key, value) written with the data (the query cache's key).
    using Meta = std::vector<std::pair<std::string, std::string>>;
    static bool write(const Timeline &timeline, ClockMode mode, const std::string &path,
                      std::string *error, const Meta &extra = {});
    // False with *why ("stale ...", "not a readable database: ...") unless `path` is a database
    // of this format whose meta.cache_key is `cacheKey` (see above). Opens it read-only.
    static bool isCache(const std::string &path, const std::string &cacheKey,
                        std::string *why = nullptr);
};

} // namespace syncline
