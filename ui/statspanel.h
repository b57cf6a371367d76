// StatsPanel — the per-name statistics table (whole job, the selected time range, or a box
// selection of tracks × range) and, for the chosen name, a per-rank bar chart with stragglers
// marked and a duration histogram (log-scale bins per rank; a click on a bin finds its events); the chart follows every new
// result (scope change, new range, clock mode). "Selected range" with no range selected (Esc)
// shows the whole job and says so, so legend, table and chart never go empty. In a comparison of two
// runs (a combined CompareTimeline), every row is of one run — A's and B's ranks are never counted
// together — the table shows a Run column, and the chart and histogram show the chosen row's run. Stats are computed off the GUI
// thread (QtConcurrent) as jobs with an id; a result whose id is not the latest, or whose clock
// mode is not the panel's current one, is dropped.
// The per-rank chart judges compute names by the straggler rule (mean per rank) and waits
// (collectives, RankOutliers::isWait) by the diagnosis's blame per rank (setDiagnosis; the
// ranks that waited longest are the victims, not the stragglers).
// Threading: GUI thread. The job gets everything by value — the query, the Timeline pointer and
// the clock mode it was given (the view's, TimelineScene::clockMode, passed in by MainWindow) —
// and reads only the Timeline's events and clock maps. When the view's mode changes, MainWindow
// calls setClockMode(), which makes a running job stale.
#pragma once

#include "histogramchart.h"
#include "rankbarchart.h"
#include "statstablemodel.h"

#include "timeline/report/diagnosis.h"

#include <QFutureWatcher>
#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace syncline::ui {

class StatsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit StatsPanel(QWidget *parent = nullptr);
    ~StatsPanel() override;
    void setTimeline(std::shared_ptr<const Timeline> timeline, ClockMode mode);
    // Range for "Selected range" mode (global ns); start >= end = no selection.
    void setSelectedRange(int64_t start, int64_t end);
    // A box selection in the view (Shift+drag): these tracks (worker, track) × [start, end];
    // switches the scope to "Box selection" and recomputes. Empty tracks clears it.
    void setBoxSelection(std::vector<std::pair<uint32_t, uint32_t>> tracks, int64_t start,
                         int64_t end);
    // The query the table (and the histogram) is computed for, in the current scope.
    StatsQuery currentQuery() const;
    HistogramChart *histogram() const { return m_histogram; }
    uint64_t completedHistograms() const { return m_histogramsDone; }
    // The mode the stats are computed in (the view's); recomputes.
    void setClockMode(ClockMode mode);
    ClockMode clockMode() const { return m_mode; }
    void refresh(); // recompute for the current scope (mode changes etc.)
    StatsTableModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QTableView *table() const { return m_table; }
    RankBarChart *chart() const { return m_chart; }
    // 0 Whole job, 1 Selected range, 2 Box selection (tracks × range)
    QComboBox *scopeBox() const { return m_scope; }
    QString statusText() const;
    // The chart and histogram show this name (in a comparison: in this run, "A" or "B"; "" keeps
    // the run chosen last, else A).
    void chooseName(uint32_t nameId, const QString &run = {});
    QString chartRun() const { return m_chartRun; }
    // Makes the table's row of this name current (clearing the name filter when it hides it):
    // the chart and histogram follow. False when the table has no such row (yet).
    bool selectName(uint32_t nameId);
    uint64_t completedJobs() const { return m_completed; }
    // The job's diagnosis (whole job, the view's clock mode): the chart's blame for waits.
    void setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis);

signals:
    void statsReady();
    void histogramReady();
    // A histogram bin was clicked: find those events (MainWindow marks them).
    void histogramBinClicked(quint32 nameId, qint64 lowNs, qint64 highNs, int rank);

private:
    struct Result
    {
        uint64_t jobId = 0;
        ClockMode mode = ClockMode::Corrected;
        std::shared_ptr<const Timeline> timeline;
        std::vector<StatsRow> rows;
    };
    void start();
    void finished();
    void startHistogram();
    bool rangeScoped() const; // "Selected range" with a non-empty range

    std::shared_ptr<const Timeline> m_timeline;
    StatsTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    RankBarChart *m_chart;
    QComboBox *m_scope;
    QLineEdit *m_filter;
    QLabel *m_status;
    QFutureWatcher<Result> m_watcher;
    HistogramChart *m_histogram;
    struct HistogramResult
    {
        uint64_t jobId = 0;
        std::shared_ptr<const Timeline> timeline;
        DurationHistogram histogram;
    };
    QFutureWatcher<HistogramResult> m_histWatcher;
    uint64_t m_histJob = 0;
    uint64_t m_histogramsDone = 0;
    bool m_histPending = false;
    std::vector<std::pair<uint32_t, uint32_t>> m_boxTracks;
    int64_t m_boxStart = 0;
    int64_t m_boxEnd = 0;
    std::vector<StatsRow> m_rows; // all rows of the latest result (incl. per rank)
    int64_t m_rangeStart = 0;
    int64_t m_rangeEnd = 0;
    ClockMode m_mode = ClockMode::Corrected;
    uint64_t m_jobId = 0;
    uint64_t m_completed = 0;
    bool m_pending = false;
    std::shared_ptr<const Diagnosis> m_diagnosis;
    std::optional<uint32_t> m_chartName; // the name the chart shows
    QString m_chartRun;                  // and its run in a comparison ("" for one job)
};

} // namespace syncline::ui
