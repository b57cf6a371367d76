// Diagnoser's steps: which name is the step, each worker's step events, the job's steps by
// (generation, index) and the heat map's cells (diagnosisdetail.h).
#include "timeline/report/diagnosisdetail.h"

#include "timeline/report/stats.h"

#include <string_view>
#include <unordered_map>

namespace syncline::diagnosis_detail {

// Per name id, the step key id it folds to (-1: never a step).
std::vector<int> stepKeys(const Context &c, std::vector<std::string> &keys)
{
    std::unordered_map<std::string_view, int> ids;
    std::vector<int> out(c.tl.names.size(), -1);
    for (uint32_t id = 1; id < c.tl.names.size(); ++id) {
        if (c.collective[id])
            continue;
        const std::string_view key = Diagnoser::stepKey(c.tl.names.name(id));
        auto [it, added] = ids.try_emplace(key, int(keys.size()));
        if (added)
            keys.emplace_back(key);
        out[id] = it->second;
    }
    return out;
}

// The step key: the query's, or the detected one (-1 when none).
int chooseStep(const Context &c, const std::vector<int> &keyOf,
               const std::vector<std::string> &keys)
{
    if (!c.q.stepName.empty()) {
        const std::string_view want = Diagnoser::stepKey(c.q.stepName);
        for (size_t k = 0; k < keys.size(); ++k)
            if (keys[k] == want)
                return int(k);
        return -1;
    }
    // Per chunk of workers (on its own thread): workers with ≥ 2 of a key, and time covered.
    const size_t W = c.tl.workers.size();
    const size_t threads = std::clamp<size_t>(c.threads, 1, std::max<size_t>(W, 1));
    std::vector<std::vector<int64_t>> chunkWorkers(threads), chunkCovered(threads);
    sync::runChunks(W, threads, [&](size_t t, size_t begin, size_t end) {
        std::vector<int64_t> &workers = chunkWorkers[t], &covered = chunkCovered[t];
        workers.assign(keys.size(), 0);
        covered.assign(keys.size(), 0);
        std::vector<int64_t> count(keys.size(), 0);
        for (size_t w = begin; w < end; ++w) {
            std::fill(count.begin(), count.end(), 0);
            for (const EventTrack &t : c.tl.workers[w].tracks) {
                if (t.async)
                    continue;
                for (size_t i = 0; i < t.count(); ++i) {
                    if (t.depth[i] != 0 || !complete(t, i))
                        continue;
                    const int k = keyOf[t.nameId[i]];
                    if (k < 0)
                        continue;
                    ++count[size_t(k)];
                    addSat(covered[size_t(k)], t.localEnd[i] - t.localStart[i]);
                }
            }
            for (size_t k = 0; k < keys.size(); ++k)
                workers[k] += count[k] >= 2;
        }
    });
    std::vector<int64_t> workers(keys.size(), 0), covered(keys.size(), 0);
    for (size_t t = 0; t < threads; ++t)
        for (size_t k = 0; k < keys.size(); ++k) {
            workers[k] += chunkWorkers[t][k];
            addSat(covered[k], chunkCovered[t][k]);
        }
    // The config's `step` kind, when it names one that occurs, wins over detection.
    std::vector<uint8_t> configured(keys.size(), 0);
    bool anyConfigured = false;
    for (uint32_t id = 0; id < c.tl.names.size(); ++id)
        if (const NameKind *kind = c.tl.kindOf(id);
            kind && kind->category == "step" && keyOf[id] >= 0)
            configured[size_t(keyOf[id])] = 1;
    for (size_t k = 0; k < keys.size(); ++k)
        anyConfigured = anyConfigured || (configured[k] && workers[k] > 0);
    int best = -1;
    for (size_t k = 0; k < keys.size(); ++k) {
        if (workers[k] == 0 || (anyConfigured && !configured[k]))
            continue;
        if (best < 0 || workers[k] > workers[size_t(best)] ||
            (workers[k] == workers[size_t(best)] && covered[k] > covered[size_t(best)]))
            best = int(k);
    }
    return best;
}

// Each worker's step events: complete events of the key at the shallowest depth it has on
// the track (the outermost), in begin order.
void collectSteps(Context &c, const std::vector<int> &keyOf, int key)
{
    c.steps.assign(c.tl.workers.size(), {});
    c.forEachWorker([&](size_t w) {
        const Worker &worker = c.tl.workers[w];
        std::vector<WorkerStep> &out = c.steps[w];
        for (size_t ti = 0; ti < worker.tracks.size(); ++ti) {
            const EventTrack &t = worker.tracks[ti];
            if (t.async)
                continue;
            // One pass: the key's events with their depth, then keep the shallowest.
            const size_t first = out.size();
            int minDepth = std::numeric_limits<int>::max();
            std::vector<uint16_t> depths;
            for (size_t i = 0; i < t.count(); ++i)
                if (keyOf[t.nameId[i]] == key && complete(t, i)) {
                    minDepth = std::min(minDepth, int(t.depth[i]));
                    depths.push_back(t.depth[i]);
                    out.push_back({uint32_t(ti), uint32_t(i)});
                }
            size_t kept = first;
            for (size_t j = first; j < out.size(); ++j)
                if (depths[j - first] == minDepth)
                    out[kept++] = out[j];
            out.resize(kept);
        }
        std::stable_sort(out.begin(), out.end(), [&](const WorkerStep &a, const WorkerStep &b) {
            return worker.tracks[a.track].localStart[a.index] <
                   worker.tracks[b.track].localStart[b.index];
        });
    });
}

// d.steps by (generation, index) and the per-worker base into them; the duration cells.
void buildSteps(Context &c, Diagnosis &d)
{
    std::map<int64_t, size_t> perGeneration; // generation → steps it has (max over workers)
    for (size_t w = 0; w < c.steps.size(); ++w) {
        size_t &n = perGeneration[c.generation[w]];
        n = std::max(n, c.steps[w].size());
    }
    std::map<int64_t, int64_t> base;
    int64_t total = 0;
    for (const auto &[g, n] : perGeneration) {
        base[g] = total;
        for (size_t k = 0; k < n; ++k)
            d.steps.push_back({g, int64_t(k), std::numeric_limits<int64_t>::max(),
                               std::numeric_limits<int64_t>::min(), 0, 0, -1});
        total += int64_t(n);
    }
    c.stepBase.assign(c.steps.size(), 0);
    const bool cells = c.q.cells;
    if (cells) {
        d.cellDurationNs.assign(d.steps.size() * d.workerCount, kNaN);
        d.cellWaitNs.assign(d.steps.size() * d.workerCount, kNaN);
    }
    std::vector<int64_t> local, begin, end;
    for (size_t w = 0; w < c.steps.size(); ++w) {
        c.stepBase[w] = base[c.generation[w]];
        // Local → global in two batches (the begins ascend: the map's segment cursor).
        const std::vector<WorkerStep> &mine = c.steps[w];
        const size_t n = mine.size();
        const sync::ClockMap &map = c.tl.map(w, c.q.mode);
        local.resize(n);
        begin.resize(n);
        end.resize(n);
        for (size_t k = 0; k < n; ++k)
            local[k] = c.tl.workers[w].tracks[mine[k].track].localStart[mine[k].index];
        map.toGlobal(local, begin);
        for (size_t k = 0; k < n; ++k)
            local[k] = c.tl.workers[w].tracks[mine[k].track].localEnd[mine[k].index];
        map.toGlobal(local, end);
        for (size_t k = 0; k < n; ++k) {
            DiagnosisStep &step = d.steps[size_t(c.stepBase[w]) + k];
            step.beginNs = std::min(step.beginNs, begin[k]);
            if (end[k] > step.endNs) {
                step.endNs = end[k];
                step.lastRankWorker = int32_t(w);
            }
            if (cells) {
                const size_t cell = (size_t(c.stepBase[w]) + k) * d.workerCount + w;
                d.cellDurationNs[cell] = float(end[k] - begin[k]);
                d.cellWaitNs[cell] = 0.0f;
            }
        }
    }
    for (DiagnosisStep &s : d.steps)
        s.whatIfEndNs = s.endNs;
}

// The step (global index) of worker w holding its local time localT, advancing `cursor` (events come
// in begin order); -1 when none.
int64_t stepAt(const Context &c, size_t w, int64_t localT, size_t &cursor)
{
    const std::vector<WorkerStep> &s = c.steps[w];
    const Worker &worker = c.tl.workers[w];
    while (cursor < s.size() && worker.tracks[s[cursor].track].localEnd[s[cursor].index] < localT)
        ++cursor;
    if (cursor < s.size() && worker.tracks[s[cursor].track].localStart[s[cursor].index] <= localT)
        return c.stepBase[w] + int64_t(cursor);
    return -1;
}

// Worker w's own begin (local ns) of its step with global index `step`.
int64_t stepBeginLocal(const Context &c, size_t w, int64_t step)
{
    const WorkerStep &s = c.steps[w][size_t(step - c.stepBase[w])];
    return c.tl.workers[w].tracks[s.track].localStart[s.index];
}

void stepSummary(const Context &c, Diagnosis &d)
{
    std::vector<int64_t> durations;
    for (const DiagnosisStep &s : d.steps)
        if (s.endNs > s.beginNs && inRange(c.q, s.beginNs))
            durations.push_back(s.durationNs());
    if (durations.empty())
        return;
    int64_t sum = 0;
    for (int64_t v : durations)
        addSat(sum, v);
    d.stepMeanNs = sum / int64_t(durations.size());
    d.stepMaxNs = *std::max_element(durations.begin(), durations.end());
    d.stepP50Ns = Stats::percentile(durations, 50);
}

} // namespace syncline::diagnosis_detail
