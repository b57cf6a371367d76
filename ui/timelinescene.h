// TimelineScene — everything the timeline view draws, independent of any widget: one TrackModel
// per (worker, thread), the row layout, colours, the clock mode, filters (rank range, name) and
// the find pattern. The view, the image exporter and the benchmark all draw a scene.
//
// Invariants: models are ordered by worker then thread (the Timeline's order); revision()
// increases on every change that alters what is drawn (geometry caches key on it); times are
// global ns in the scene's clock mode; begin/end span every event of every worker.
// Live: the scene may show a Timeline that a LiveJob appends to in place (on the GUI thread);
// after each LiveJob::commit, applyLive(update) brings the scene up to date in time ∝ the new
// events (+ O(tracks + rows + new names)): the changed tracks' models re-index from their first
// changed event, models follow inserted workers/tracks by identity (file, pid, tid), new names
// get colours, filter and search flags, and the layout is rebuilt only when workers, threads or
// depths appeared. Nothing is copied and no model of an unchanged track is touched.
// Threading: GUI thread (or one thread). The Timeline must outlive the scene and must not be
// mutated except by a LiveJob commit followed by applyLive.
#pragma once

#include "colourscheme.h"
#include "countermodel.h"
#include "culpritmarks.h"
#include "linkindex.h"
#include "rowlayout.h"
#include "trackmodel.h"
#include "workerstatus.h"

#include "timeline/live/liveupdate.h"
#include "timeline/report/eventquery.h"

#include <QRegularExpression>
#include <QString>

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace syncline::ui {

// A reference to one event: model index (into TimelineScene::models()) and event index.
struct EventRef
{
    int model = -1;
    int index = -1;
    bool valid() const { return model >= 0 && index >= 0; }
    bool operator==(const EventRef &o) const { return model == o.model && index == o.index; }
};

class TimelineScene
{
public:
    explicit TimelineScene(std::shared_ptr<const Timeline> timeline);

    const Timeline &timeline() const { return *m_timeline; }
    std::shared_ptr<const Timeline> timelinePtr() const { return m_timeline; }
    const std::vector<TrackModel> &models() const { return m_models; }
    const TrackModel &model(int m) const { return m_models[size_t(m)]; }
    // One per counter series (Worker::counters), in worker order: LayoutRow::counter indexes it.
    const std::vector<CounterModel> &counterModels() const { return m_counterModels; }
    // Colour slot of counter model k: its label's place among the job's distinct counter labels
    // (first appearance), so "loss" has one colour on every rank.
    int counterColourSlot(int k) const { return m_counterSlot[size_t(k)]; }
    const RowLayout &layout() const { return m_layout; }
    const ColourScheme &colours() const { return m_colours; }
    // View ▸ Colour by category: names of a configured category share its colour (ColourScheme).
    void setColourByCategory(bool on);
    // Legend: one entry per colour — the names in `nameIds` (most important first), with the
    // names of one category merged into the category's first one.
    std::vector<uint32_t> legendEntries(const std::vector<uint32_t> &nameIds) const;
    // The legend's text for an entry: its category in category mode, else its name.
    QString legendLabel(uint32_t nameId) const;
    // Brings the scene up to date after a LiveJob commit on the Timeline it shows.
    void applyLive(const LiveUpdate &update);
    // Events indexed by TrackModels since construction (construction counts every event; a
    // live update only what it re-indexed) — the incremental view's cost measure.
    uint64_t indexedEvents() const { return m_indexed; }
    const QString &displayName(uint32_t nameId) const { return m_displayNames[nameId]; }
    uint64_t revision() const { return m_revision; }

    // The view's clock mode: the one place the viewer keeps it. Everything that shows or exports
    // what the view shows (track models, geometry, stats, exports, the clock panel) is given it.
    ClockMode clockMode() const { return m_mode; }
    void setClockMode(ClockMode mode);
    // The job's range in the view's mode (Timeline::range, the one rule).
    const TimeRange &range() const { return m_timeline->range(m_mode); }
    int64_t beginNs() const { return range().begin; }
    int64_t endNs() const { return range().end; }
    int64_t originNs() const { return range().origin; } // display zero
    // Wall-clock ns of global time t (from the first worker's header anchor); false if unknown.
    bool wallClock(int64_t globalT, int64_t *wallNs) const;

    void setRowMetrics(const RowMetrics &metrics);
    void setCollapsed(int worker, bool collapsed);
    bool isCollapsed(int worker) const { return m_collapsed[size_t(worker)]; }
    void setAllCollapsed(bool collapsed);
    // Shows only workers with minRank <= rank <= maxRank.
    void setRankFilter(int minRank, int maxRank);
    // Only events whose name contains `text` (case-insensitive) are drawn; "" = all.
    void setNameFilter(const QString &text);

    // Track control (the context menus, the find bar's thread filter and Hidden list): hidden
    // workers and threads, pinned workers and threads (laid out first; the view keeps them
    // above the scrolled rows; a pinned thread under its worker's label), a thread-name filter. Kept by identity (workerKey, trackKey), so they
    // survive live updates and the reload of the same job (viewState / restoreViewState).
    void setWorkerHidden(int worker, bool hidden);
    bool isWorkerHidden(int worker) const;
    void setTrackHidden(int model, bool hidden);
    bool isTrackHidden(int model) const;
    void showOnlyWorker(int worker); // hides every other worker, shows this one
    void showAllHidden();            // unhides every worker and thread
    std::vector<int> hiddenWorkers() const;
    std::vector<int> hiddenTracks() const; // models
    void setPinned(int worker, bool pinned);
    bool isPinned(int worker) const;
    size_t pinnedCount() const { return m_pinnedKeys.size(); }
    // One thread pinned on its own (its worker's other threads stay in place); kept while it is
    // hidden or filtered out, shown again pinned when it comes back.
    void setTrackPinned(int model, bool pinned);
    bool isTrackPinned(int model) const;
    std::vector<int> pinnedTracks() const; // models
    // Only threads whose name (or "name (tid)") contains `text`, case-insensitive; "" = all.
    void setThreadFilter(const QString &text);
    const QString &threadFilter() const { return m_threadFilter; }
    // Whether model m has rows: its worker passes the rank filter and is not hidden, the
    // thread is not hidden and passes the thread filter.
    bool modelShown(int model) const { return m_modelShown[size_t(model)]; }
    bool workerShown(int worker) const { return m_visible[size_t(worker)]; }
    std::string workerKey(int worker) const;
    std::string trackKey(int model) const;
    // A thread's label as the gutter draws it: "main (41236)".
    QString threadLabel(int model) const;
    bool nameVisible(uint32_t nameId) const
    {
        return m_nameVisible.empty() || m_nameVisible[nameId];
    }

    // Find: highlight the events matching `pattern`; the rest is dimmed. Without `regex` the
    // pattern is an EventQuery (report/eventquery.h: bare words match names, fields name: rank:
    // host: restart: thread: cat:, dur>1ms, args.KEY=V, /regex/); with it, a regular expression
    // over names. Returns false (and clears the search) when it does not parse: searchError().
    bool setSearch(const QString &pattern, bool regex);
    const QString &searchError() const { return m_searchError; }
    bool searchActive() const { return !m_match.empty(); }
    bool nameMatches(uint32_t nameId) const { return m_match.empty() || m_match[nameId]; }
    // Find narrowed to durations in [minNs, maxNs) and, with rank >= 0, one rank (a duration
    // histogram's bin, StatsPanel): only those events of the matching names are matches, lit
    // and marked. setSearch() clears it.
    struct DurationFilter
    {
        int64_t minNs = 0;
        int64_t maxNs = 0;
        int rank = -1;
    };
    void setDurationFilter(const std::optional<DurationFilter> &filter);
    const std::optional<DurationFilter> &durationFilter() const { return m_durationFilter; }
    // Whether event i of model m is a find match (its name matches and it passes the duration
    // filter); true for everything without a search.
    bool eventMatches(int model, int index) const;
    // The place of a matching, visible event among all matches in nextMatch's order (1-based):
    // the "i" of the find bar's "i / N"; 0 when it is not a match. O(rows · log matches).
    int64_t matchIndex(const EventRef &ref) const;
    int matchingNameCount() const { return m_matchingNames; }
    // Matching events (name matches the find pattern and passes the name filter) in the workers
    // the rank filter shows — the find bar's counter.
    int64_t matchingEventCount() const;
    // Positions p in model(m).depthRow(d) of matching events, ascending (so also by start);
    // empty without a search. Built once per search / filter change (O(events)), extended in
    // O(new events) by applyLive. The geometry marks folds and the overview from it.
    const std::vector<uint32_t> &matchPositions(int model, int depth) const;
    // Whether a match lies at a position in [from, to) of model m's depth row d: O(log matches).
    bool matchIn(int model, int depth, size_t from, size_t to) const;
    // The models of one worker: [first, last) indices into models().
    std::pair<int, int> modelsOf(int worker) const;
    // Next/previous matching (and visible) event strictly after/before `from` in time order
    // (start time, then model, then index); invalid ref when none.
    EventRef nextMatch(const EventRef &from, bool forward) const;

    EventRef selected() const { return m_selected; }
    void setSelected(const EventRef &ref);

    // Links (message pairs, flows) drawn as arrows (View ▸ Links, LinkPainter).
    const LinkIndex &linkIndex() const { return *m_links; }
    bool linksVisible() const { return m_linksVisible; }
    void setLinksVisible(bool on);
    // Events outlined as one collective instance across ranks (CollectiveSpread); empty = none.
    const std::vector<EventRef> &highlighted() const { return m_highlighted; }
    void setHighlighted(std::vector<EventRef> refs);

    // How each worker's log ended (WorkerStatuses), shown on its group header and the overview;
    // empty = not known. A live update that adds workers clears it (indices shift).
    const std::vector<WorkerStatus> &workerStatuses() const { return m_statuses; }
    WorkerStatus workerStatus(int worker) const
    {
        return size_t(worker) < m_statuses.size() ? m_statuses[size_t(worker)]
                                                  : WorkerStatus::Unknown;
    }
    void setWorkerStatuses(std::vector<WorkerStatus> statuses);
    // Culprit marks of the latest diagnosis (built for this scene's models); a live update that
    // adds workers or threads clears them, as does another clock mode (they are not drawn).
    const CulpritMarks &culpritMarks() const { return m_culpritMarks; }
    void setCulpritMarks(CulpritMarks marks);

private:
    void rebuildLayout();
    void updateVisibility(); // m_visible, m_modelShown from filters and hidden sets; relayout
    void addNames();
    void remapModels();
    void buildCounterModels();
    bool nameFilterHit(const QString &name) const;
    bool searchHit(uint32_t nameId) const;
    bool eventVisible(int model, int index) const;
    bool inDurationFilter(const TrackModel &tm, int index) const;
    bool queryEventHit(const TrackModel &tm, int index) const; // the query's dur/args terms
    void buildQueryModels();
    void rebuildMatches();
    void extendMatches(size_t model, size_t from);

    std::shared_ptr<const Timeline> m_timeline;
    std::vector<TrackModel> m_models;
    std::vector<CounterModel> m_counterModels;
    std::vector<size_t> m_counterWorker; // per counter model: its worker
    std::vector<int> m_counterSlot;      // per counter model: its colour slot
    RowLayout m_layout;
    RowMetrics m_metrics;
    ColourScheme m_colours;
    std::vector<QString> m_displayNames;
    std::vector<int64_t> m_nameWeight; // per name: total ns at construction (colour priority)
    std::vector<bool> m_collapsed;
    std::vector<bool> m_visible;    // per worker: rank filter and not hidden
    std::vector<bool> m_modelShown; // per model: worker visible, thread shown
    std::vector<bool> m_pinned;      // per worker
    std::vector<bool> m_modelPinned; // per model: pinned on its own
    std::set<std::string> m_hiddenWorkerKeys, m_hiddenTrackKeys, m_pinnedKeys, m_pinnedTrackKeys;
    QString m_threadFilter;
    std::vector<uint8_t> m_nameVisible;
    std::vector<uint8_t> m_match;
    int m_matchingNames = 0;
    std::vector<std::vector<std::vector<uint32_t>>> m_matchPos; // [model][depth] → positions
    std::vector<size_t> m_firstModel;                           // per worker: its first model
    std::vector<std::string> m_workerFile;               // per worker: identity (source file)
    std::vector<std::pair<int64_t, int64_t>> m_modelKey; // per model: (pid, tid)
    QString m_nameFilter;
    QString m_search;
    QRegularExpression m_searchRe; // valid when the search is a regex
    bool m_searchIsRegex = false;
    QString m_searchError;
    std::optional<EventQuery> m_query;  // the parsed search (not a regex)
    std::vector<uint8_t> m_queryModel;  // per model: passes the query's track terms
    mutable std::vector<int8_t> m_argMatch; // per args id: -1 unknown, else the args terms' verdict
    int m_minRank = std::numeric_limits<int>::min();
    int m_maxRank = std::numeric_limits<int>::max();
    uint64_t m_indexed = 0;
    EventRef m_selected;
    std::optional<DurationFilter> m_durationFilter;
    std::shared_ptr<const LinkIndex> m_links;
    bool m_linksVisible = true;
    std::vector<EventRef> m_highlighted;
    std::vector<WorkerStatus> m_statuses;
    CulpritMarks m_culpritMarks;
    ClockMode m_mode = ClockMode::Corrected;
    uint64_t m_revision = 1;
};

} // namespace syncline::ui
