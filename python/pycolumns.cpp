// PyColumns — see pycolumns.h.
#include "pycolumns.h"

#include "timeline/model/timeline.h"
#include "timeline/model/collectiveinstances.h"
#include "timeline/model/hugepages.h"
#include "timeline/report/csvexporter.h"
#include "timeline/report/diagnosis.h"

#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

namespace syncline::py {

namespace pyb = pybind11;

namespace {

// The event columns, in the order the dict lists them.
const char *const kEventFields[] = {"worker", "rank", "restart", "tid", "name_id", "depth",
                                    "parent", "start_ns", "end_ns", "local_start_ns",
                                    "local_end_ns", "status", "flags", "bound_ns"};

// Status codes: the events CSV's status words, in this order.
const char *const kStatusNames[] = {"complete", "overdue", "open"};

// The code of each flags value, from the CSV's rule (CsvExporter::status), made once.
const std::vector<uint8_t> &statusCodes()
{
    static const std::vector<uint8_t> codes = [] {
        std::vector<uint8_t> c(65536);
        for (uint32_t f = 0; f < c.size(); ++f) {
            const std::string_view s = CsvExporter::status(uint16_t(f));
            c[f] = s == "open" ? 2 : s == "overdue" ? 1 : 0;
        }
        return c;
    }();
    return codes;
}

// A column's memory: arrays of 2 MiB and more are mapped in transparent huge pages (one page
// fault per 2 MiB instead of 512; fresh pages are zeroed by the kernel either way), the numpy
// array owning the mapping through a capsule; smaller ones, or where mapping fails, are numpy's.
struct Mapping
{
    char *base = nullptr;
    size_t bytes = 0;
};

void *mapHuge(size_t bytes, pyb::capsule &owner)
{
    const size_t mapped = hugepages::roundUp(bytes);
    char *base = hugepages::map(mapped);
    if (!base)
        return nullptr;
    auto *m = new Mapping{base, mapped};
    owner = pyb::capsule(m, [](void *p) {
        auto *mm = static_cast<Mapping *>(p);
        hugepages::unmap(mm->base, mm->bytes);
        delete mm;
    });
    return base;
}

template <typename T> T *alloc(pyb::dict &out, const char *name, size_t n, bool want)
{
    if (!want)
        return nullptr;
    if (n * sizeof(T) >= hugepages::kHugePage) {
        pyb::capsule owner;
        if (void *p = mapHuge(n * sizeof(T), owner)) {
            T *data = static_cast<T *>(p);
            pyb::array_t<T> a({static_cast<pyb::ssize_t>(n)}, {static_cast<pyb::ssize_t>(sizeof(T))},
                              data, owner);
            out[name] = a;
            return data;
        }
    }
    pyb::array_t<T> a(static_cast<pyb::ssize_t>(n));
    out[name] = a;
    return a.mutable_data();
}

// Runs body(w) for every worker index, spread over the hardware's threads (GIL released).
template <typename F> void forWorkers(size_t workers, size_t events, F body)
{
    pyb::gil_scoped_release release;
    const size_t threads = events < 200000 ? 1
                                           : std::min<size_t>(workers, std::max(1u, std::thread::hardware_concurrency()));
    if (threads <= 1) {
        for (size_t w = 0; w < workers; ++w)
            body(w);
        return;
    }
    std::vector<std::thread> pool;
    std::atomic<size_t> next{0};
    for (size_t t = 0; t < threads; ++t)
        pool.emplace_back([&] {
            for (size_t w = next++; w < workers; w = next++)
                body(w);
        });
    for (auto &t : pool)
        t.join();
}

pyb::list names(const StringTable &table)
{
    pyb::list out;
    for (uint32_t i = 0; i < table.size(); ++i)
        out.append(pyb::str(std::string(table.name(i))));
    return out;
}

} // namespace

pyb::dict PyColumns::events(const std::shared_ptr<const Timeline> &timeline, ClockMode mode,
                            const pyb::object &fields)
{
    const Timeline &tl = *timeline;
    std::set<std::string> want;
    if (fields.is_none())
        want.insert(std::begin(kEventFields), std::end(kEventFields));
    else
        for (pyb::handle f : fields) {
            const std::string name = pyb::str(f);
            if (std::find_if(std::begin(kEventFields), std::end(kEventFields),
                             [&](const char *k) { return name == k; }) == std::end(kEventFields))
                throw pyb::value_error("columns(): unknown field '" + name + "'");
            want.insert(name);
        }
    auto has = [&](const char *f) { return want.count(f) != 0; };
    // Row offsets: per worker, per track.
    std::vector<std::vector<size_t>> offset(tl.workers.size());
    size_t n = 0;
    for (size_t w = 0; w < tl.workers.size(); ++w)
        for (const EventTrack &t : tl.workers[w].tracks) {
            offset[w].push_back(n);
            n += t.count();
        }
    pyb::dict out;
    auto *worker = alloc<int32_t>(out, "worker", n, has("worker"));
    auto *rank = alloc<int32_t>(out, "rank", n, has("rank"));
    auto *restart = alloc<int32_t>(out, "restart", n, has("restart"));
    auto *tid = alloc<int64_t>(out, "tid", n, has("tid"));
    auto *nameId = alloc<uint32_t>(out, "name_id", n, has("name_id"));
    auto *depth = alloc<uint16_t>(out, "depth", n, has("depth"));
    auto *parent = alloc<int64_t>(out, "parent", n, has("parent"));
    auto *start = alloc<int64_t>(out, "start_ns", n, has("start_ns"));
    auto *end = alloc<int64_t>(out, "end_ns", n, has("end_ns"));
    auto *localStart = alloc<int64_t>(out, "local_start_ns", n, has("local_start_ns"));
    auto *localEnd = alloc<int64_t>(out, "local_end_ns", n, has("local_end_ns"));
    auto *status = alloc<uint8_t>(out, "status", n, has("status"));
    auto *flags = alloc<uint16_t>(out, "flags", n, has("flags"));
    auto *bound = alloc<int64_t>(out, "bound_ns", n, has("bound_ns"));
    const uint8_t *codes = statusCodes().data();
    forWorkers(tl.workers.size(), n, [&](size_t w) {
        const Worker &wk = tl.workers[w];
        const sync::ClockMap &map = wk.map(mode);
        for (size_t ti = 0; ti < wk.tracks.size(); ++ti) {
            const EventTrack &t = wk.tracks[ti];
            const size_t o = offset[w][ti], c = t.count();
            if (worker)
                std::fill_n(worker + o, c, int32_t(w));
            if (rank)
                std::fill_n(rank + o, c, int32_t(wk.info.rank));
            if (restart)
                std::fill_n(restart + o, c, int32_t(wk.info.restart));
            if (tid)
                std::fill_n(tid + o, c, t.tid);
            if (bound)
                std::fill_n(bound + o, c, wk.clock.boundNs);
            if (nameId)
                std::copy_n(t.nameId.data(), c, nameId + o);
            if (depth)
                std::copy_n(t.depth.data(), c, depth + o);
            if (localStart)
                std::copy_n(t.localStart.data(), c, localStart + o);
            if (localEnd)
                std::copy_n(t.localEnd.data(), c, localEnd + o);
            if (flags)
                std::copy_n(t.flags.data(), c, flags + o);
            if (parent)
                for (size_t i = 0; i < c; ++i)
                    parent[o + i] = t.parent[i] < 0 ? -1 : int64_t(o) + t.parent[i];
            if (status)
                for (size_t i = 0; i < c; ++i)
                    status[o + i] = codes[t.flags[i]];
            if (start)
                map.toGlobal(std::span(t.localStart.data(), c), std::span(start + o, c));
            if (end)
                map.toGlobal(std::span(t.localEnd.data(), c), std::span(end + o, c));
        }
    });
    if (has("name_id"))
        out["names"] = names(tl.names);
    if (has("status"))
        out["status_names"] = pyb::make_tuple(kStatusNames[0], kStatusNames[1], kStatusNames[2]);
    return out;
}

pyb::dict PyColumns::counters(const std::shared_ptr<const Timeline> &timeline, ClockMode mode)
{
    const Timeline &tl = *timeline;
    // Series ids: one per distinct (name, series) label, in first-seen order.
    std::vector<std::string> labels;
    std::unordered_map<std::string, uint32_t> labelIds;
    std::vector<std::vector<uint32_t>> seriesOf(tl.workers.size());
    std::vector<std::vector<size_t>> offset(tl.workers.size());
    size_t n = 0;
    for (size_t w = 0; w < tl.workers.size(); ++w)
        for (const CounterTrack &c : tl.workers[w].counters) {
            const std::string label = c.label();
            const auto [it, added] = labelIds.try_emplace(label, uint32_t(labels.size()));
            if (added)
                labels.push_back(label);
            seriesOf[w].push_back(it->second);
            offset[w].push_back(n);
            n += c.count();
        }
    pyb::dict out;
    auto *worker = alloc<int32_t>(out, "worker", n, true);
    auto *rank = alloc<int32_t>(out, "rank", n, true);
    auto *restart = alloc<int32_t>(out, "restart", n, true);
    auto *pid = alloc<int64_t>(out, "pid", n, true);
    auto *name = alloc<uint32_t>(out, "name_id", n, true);
    auto *time = alloc<int64_t>(out, "time_ns", n, true);
    auto *local = alloc<int64_t>(out, "local_ns", n, true);
    auto *value = alloc<double>(out, "value", n, true);
    forWorkers(tl.workers.size(), n, [&](size_t w) {
        const Worker &wk = tl.workers[w];
        for (size_t ci = 0; ci < wk.counters.size(); ++ci) {
            const CounterTrack &c = wk.counters[ci];
            const size_t o = offset[w][ci], k = c.count();
            std::fill_n(worker + o, k, int32_t(w));
            std::fill_n(rank + o, k, int32_t(wk.info.rank));
            std::fill_n(restart + o, k, int32_t(wk.info.restart));
            std::fill_n(pid + o, k, c.pid);
            std::fill_n(name + o, k, seriesOf[w][ci]);
            std::copy_n(c.localTs.data(), k, local + o);
            std::copy_n(c.value.data(), k, value + o);
            wk.map(mode).toGlobal(std::span(c.localTs.data(), k), std::span(time + o, k));
        }
    });
    pyb::list names;
    for (const std::string &l : labels)
        names.append(pyb::str(l));
    out["names"] = names;
    return out;
}

pyb::dict PyColumns::links(const std::shared_ptr<const Timeline> &timeline, ClockMode mode)
{
    const Timeline &tl = *timeline;
    const size_t n = tl.links.size();
    pyb::dict out;
    auto *fromRank = alloc<int32_t>(out, "from_rank", n, true);
    auto *fromTid = alloc<int64_t>(out, "from_tid", n, true);
    auto *toRank = alloc<int32_t>(out, "to_rank", n, true);
    auto *toTid = alloc<int64_t>(out, "to_tid", n, true);
    auto *kind = alloc<uint8_t>(out, "kind", n, true);
    auto *fromNs = alloc<int64_t>(out, "from_ns", n, true);
    auto *toNs = alloc<int64_t>(out, "to_ns", n, true);
    auto *fromWorker = alloc<int32_t>(out, "from_worker", n, true);
    auto *toWorker = alloc<int32_t>(out, "to_worker", n, true);
    {
        pyb::gil_scoped_release release;
        for (const LinkTable::Group &g : tl.links.groups()) {
            const Worker &fw = tl.workers[g.fromWorker], &tw = tl.workers[g.toWorker];
            for (size_t i = g.begin; i < g.end; ++i) {
                const LinkTable::Ends &e = tl.links.ends(i);
                fromWorker[i] = int32_t(g.fromWorker);
                toWorker[i] = int32_t(g.toWorker);
                fromRank[i] = fw.info.rank;
                toRank[i] = tw.info.rank;
                fromTid[i] = fw.tracks[g.fromTrack].tid;
                toTid[i] = tw.tracks[g.toTrack].tid;
                kind[i] = uint8_t(g.kind);
                fromNs[i] = fw.map(mode).toGlobal(e.fromLocal);
                toNs[i] = tw.map(mode).toGlobal(e.toLocal);
            }
        }
    }
    out["kind_names"] = pyb::make_tuple("message", "flow");
    return out;
}

pyb::dict PyColumns::collectives(const std::shared_ptr<const Timeline> &timeline, ClockMode mode)
{
    const Timeline &tl = *timeline;
    Diagnosis d;
    std::vector<std::vector<int64_t>> firstRow(tl.workers.size()); // per worker, per track
    {
        pyb::gil_scoped_release release;
        DiagnoseQuery q;
        q.mode = mode;
        q.cells = false;
        q.whatIfRanks = 0;
        q.arrivals = true;
        d = Diagnoser::run(tl, q);
        int64_t row = 0;
        for (size_t w = 0; w < tl.workers.size(); ++w)
            for (const EventTrack &t : tl.workers[w].tracks) {
                firstRow[w].push_back(row);
                row += int64_t(t.count());
            }
    }
    const size_t n = d.arrivals.size();
    std::unordered_map<uint32_t, int32_t> nameIndex;
    pyb::list names;
    for (uint32_t id : d.collectiveNames) {
        nameIndex[id] = int32_t(nameIndex.size());
        names.append(pyb::str(std::string(tl.names.name(id))));
    }
    pyb::dict out;
    auto *instance = alloc<int64_t>(out, "instance", n, true);
    auto *worker = alloc<int32_t>(out, "worker", n, true);
    auto *rank = alloc<int32_t>(out, "rank", n, true);
    auto *restart = alloc<int32_t>(out, "restart", n, true);
    auto *name = alloc<int32_t>(out, "name_id", n, true);
    auto *sequence = alloc<int64_t>(out, "sequence", n, true);
    auto *generation = alloc<int64_t>(out, "generation", n, true);
    auto *participants = alloc<int32_t>(out, "participants", n, true);
    auto *decided = alloc<bool>(out, "decided", n, true);
    auto *event = alloc<int64_t>(out, "event", n, true);
    auto *arrival = alloc<int64_t>(out, "arrival_ns", n, true);
    auto *end = alloc<int64_t>(out, "end_ns", n, true);
    auto *wait = alloc<int64_t>(out, "wait_ns", n, true);
    auto *last = alloc<bool>(out, "last", n, true);
    {
        pyb::gil_scoped_release release;
        for (size_t i = 0; i < n; ++i) {
            const Diagnosis::Arrival &a = d.arrivals[i];
            const DiagnosisInstance &in = d.instanceList[a.instance];
            const WorkerInfo &info = tl.workers[a.worker].info;
            instance[i] = a.instance;
            worker[i] = int32_t(a.worker);
            rank[i] = info.rank;
            restart[i] = info.restart;
            name[i] = nameIndex.at(in.nameId);
            sequence[i] = in.sequence & CollectiveInstances::kIndexMask;
            generation[i] = in.sequence >> CollectiveInstances::kGenerationShift;
            participants[i] = in.participants;
            decided[i] = in.decided;
            event[i] = firstRow[a.worker][a.track] + int64_t(a.index);
            arrival[i] = a.arrivalNs;
            end[i] = a.endNs;
            wait[i] = a.waitNs;
            last[i] = int32_t(a.worker) == in.lastWorker;
        }
    }
    out["names"] = names;
    return out;
}

} // namespace syncline::py
