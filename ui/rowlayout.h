// RowLayout — the vertical layout of the timeline: one group per worker (a header row with its
// label, "rank 3 · host-b · restart 0"), then per thread one row per nesting depth. Collapsed
// groups keep only their header; counter series (CounterRow) follow the worker's threads (which shows the depth-0 events of the worker's first thread).
//
// Invariants: rows are in display order with increasing y (pinned workers and threads first); y
// and height are in px from the top of the content (not the viewport); rows never overlap; a
// thread's rows appear once; totalHeight() is the last row's bottom.
// A row refers to its TrackModel by index into the scene's model list (-1 for a header).
// Threading: plain value type; build on the GUI thread (or any single thread).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace syncline::ui {

class TrackModel;

struct LayoutRow
{
    enum Kind
    {
        GroupHeader,
        EventRow,
        CounterRow // one counter series, after the worker's tracks (CounterPainter draws it)
    };
    Kind kind = EventRow;
    int worker = 0;
    int model = -1; // index into the scene's models; for a collapsed header, the first track's
    int depth = 0;
    int counter = -1; // CounterRow: index into the scene's counter models
    double y = 0;
    double height = 0;
    bool collapsed = false;     // header of a collapsed group
    bool firstOfTrack = false;  // depth-0 row of a thread (where its name is drawn)
    bool pinnedThreads = false; // header over a worker's pinned threads (in the pinned band)
};

struct RowMetrics
{
    double headerHeight = 22;
    double rowHeight = 18;
    double trackGap = 4;
    double counterHeight = 40;
};

class RowLayout
{
public:
    // workerOf[m] = worker of model m; models are grouped per worker in worker order.
    // visible[w] false hides worker w entirely (rank filter); collapsed[w] keeps only its header.
    // counterWorker[k] = worker of counter model k (grouped per worker in worker order): each
    // gets a CounterRow after its worker's tracks. modelShown[m] false hides track m (hidden or
    // filtered out by thread name); a worker whose tracks are all hidden keeps its header.
    // pinned[w]: worker w is laid out first, in worker order, in [0, pinnedHeight()) — the
    // view keeps that band fixed above the scrolled rows. pinnedModel[m]: thread m (shown, of a
    // worker not pinned as a whole) moves to that band, under a header with its worker's label
    // (pinnedThreads; one per worker, in worker order among the pinned workers, never
    // collapsed); its worker's group below goes on without it.
    void build(const std::vector<TrackModel> &models, size_t workerCount,
               const std::vector<bool> &visible, const std::vector<bool> &collapsed,
               const RowMetrics &metrics, const std::vector<size_t> &counterWorker = {},
               const std::vector<bool> &modelShown = {}, const std::vector<bool> &pinned = {},
               const std::vector<bool> &pinnedModel = {});
    double pinnedHeight() const { return m_pinnedHeight; }

    const std::vector<LayoutRow> &rows() const { return m_rows; }
    double totalHeight() const { return m_total; }
    const RowMetrics &metrics() const { return m_metrics; }
    int rowAt(double y) const; // -1 when y falls in no row (gaps, outside)
    // Rows intersecting [y0, y1): [first, last) indices.
    std::pair<size_t, size_t> rowsIn(double y0, double y1) const;
    int rowOf(int model, int depth) const; // -1 when hidden or collapsed
    int headerOf(int worker) const;        // its group's header (not pinnedThreads); -1 when hidden
    // The total height the same rows would take with other metrics (fitting rows to a height).
    double heightWith(const RowMetrics &metrics) const;

private:
    std::vector<LayoutRow> m_rows;
    RowMetrics m_metrics;
    double m_total = 0;
    double m_pinnedHeight = 0;
    size_t m_headers = 0, m_eventRows = 0, m_tracks = 0, m_counters = 0;
};

} // namespace syncline::ui
