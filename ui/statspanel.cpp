#include "statspanel.h"

#include "timeformat.h"

#include "timeline/report/rankoutliers.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace syncline::ui {

StatsPanel::StatsPanel(QWidget *parent)
    : QWidget(parent), m_model(new StatsTableModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_table(new QTableView(this)), m_chart(new RankBarChart(this)), m_scope(new QComboBox(this)),
      m_filter(new QLineEdit(this)), m_status(new QLabel(this)),
      m_histogram(new HistogramChart(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(StatsTableModel::SortRole);
    m_proxy->setFilterKeyColumn(StatsTableModel::Name);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(StatsTableModel::Total, Qt::DescendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(StatsTableModel::Name, QHeaderView::Stretch);
    m_table->setAlternatingRowColors(true);
    m_table->horizontalHeader()->moveSection(StatsTableModel::Run, 1); // beside the name
    m_table->setColumnHidden(StatsTableModel::Run, true);
    m_scope->addItems({tr("Whole job"), tr("Selected range"), tr("Box selection")});
    m_scope->setItemData(2,
                         tr("Shift+drag in the timeline: the tracks and the time range in the box"),
                         Qt::ToolTipRole);
    m_filter->setPlaceholderText(tr("Filter names…"));
    m_filter->setClearButtonEnabled(true);
    auto *top = new QHBoxLayout;
    top->addWidget(m_scope);
    top->addWidget(m_filter, 1);
    top->addWidget(m_status);
    auto *split = new QSplitter(Qt::Horizontal, this);
    split->addWidget(m_table);
    auto *charts = new QSplitter(Qt::Vertical, this);
    charts->addWidget(m_chart);
    charts->addWidget(m_histogram);
    split->addWidget(charts);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    connect(m_filter, &QLineEdit::textChanged, m_proxy,
            &QSortFilterProxyModel::setFilterFixedString);
    connect(m_scope, &QComboBox::currentIndexChanged, this, &StatsPanel::refresh);
    connect(&m_watcher, &QFutureWatcher<Result>::finished, this, &StatsPanel::finished);
    connect(&m_histWatcher, &QFutureWatcher<HistogramResult>::finished, this, [this] {
        HistogramResult r = m_histWatcher.result();
        if (m_histPending) {
            m_histPending = false;
            startHistogram();
        }
        if (r.jobId != m_histJob || r.timeline != m_timeline)
            return; // stale
        ++m_histogramsDone;
        const std::string_view n = m_timeline->names.name(r.histogram.nameId);
        m_histogram->setHistogram(QString::fromUtf8(n.data(), qsizetype(n.size())),
                                  std::move(r.histogram));
        emit histogramReady();
    });
    connect(m_histogram, &HistogramChart::binClicked, this, [this](qint64 lo, qint64 hi, int rank) {
        emit histogramBinClicked(m_histogram->histogram().nameId, lo, hi, rank);
    });
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (current.isValid())
                    chooseName(current.data(StatsTableModel::NameIdRole).toUInt(),
                               current.data(StatsTableModel::RunRole).toString());
            });
}

StatsPanel::~StatsPanel()
{
    m_watcher.waitForFinished();
    m_histWatcher.waitForFinished();
}

void StatsPanel::setTimeline(std::shared_ptr<const Timeline> timeline, ClockMode mode)
{
    m_timeline = std::move(timeline);
    m_mode = mode;
    m_rows.clear();
    m_chartName.reset();
    m_chartRun.clear();
    m_model->setRows(nullptr, {});
    m_chart->setData({}, {});
    m_histogram->setHistogram({}, {});
    m_boxTracks.clear();
    refresh();
}

void StatsPanel::setBoxSelection(std::vector<std::pair<uint32_t, uint32_t>> tracks, int64_t start,
                                 int64_t end)
{
    std::sort(tracks.begin(), tracks.end());
    m_boxTracks = std::move(tracks);
    m_boxStart = start;
    m_boxEnd = end;
    if (m_boxTracks.empty() && m_scope->currentIndex() != 2)
        return;
    const QSignalBlocker block(m_scope);
    m_scope->setCurrentIndex(m_boxTracks.empty() ? 0 : 2);
    refresh();
}

StatsQuery StatsPanel::currentQuery() const
{
    StatsQuery query;
    query.perRank = true;
    query.mode = m_mode; // by value, as given (the view's mode)
    if (m_scope->currentIndex() == 2 && !m_boxTracks.empty()) {
        query.useRange = true;
        query.beginNs = std::min(m_boxStart, m_boxEnd);
        query.endNs = std::max(m_boxStart, m_boxEnd);
        query.tracks = m_boxTracks;
    } else if (rangeScoped()) {
        query.useRange = true;
        query.beginNs = m_rangeStart;
        query.endNs = std::max(m_rangeStart, m_rangeEnd);
    }
    return query;
}

void StatsPanel::setSelectedRange(int64_t start, int64_t end)
{
    m_rangeStart = start;
    m_rangeEnd = end;
    // A measured range (a drag on the ruler) is what the table shows next, as a box is.
    if (end > start && m_scope->currentIndex() == 0) {
        const QSignalBlocker block(m_scope);
        m_scope->setCurrentIndex(1);
    }
    if (m_scope->currentIndex() == 1)
        refresh();
}

void StatsPanel::setClockMode(ClockMode mode)
{
    m_mode = mode;
    refresh();
}

void StatsPanel::refresh()
{
    ++m_jobId; // anything still running is now stale
    if (!m_timeline) {
        m_status->clear();
        return;
    }
    if (m_watcher.isRunning()) {
        m_pending = true; // start again when the running job ends
        return;
    }
    start();
}

void StatsPanel::start()
{
    const StatsQuery query = currentQuery();
    m_status->setText(tr("computing…"));
    const uint64_t id = m_jobId;
    const ClockMode mode = m_mode;
    std::shared_ptr<const Timeline> timeline = m_timeline;
    m_watcher.setFuture(QtConcurrent::run([id, mode, timeline, query] {
        return Result{id, mode, timeline, Stats::compute(*timeline, query)};
    }));
}

void StatsPanel::finished()
{
    Result r = m_watcher.result();
    if (m_pending) {
        m_pending = false;
        start();
    }
    if (r.jobId != m_jobId || r.mode != m_mode || r.timeline != m_timeline)
        return; // stale
    ++m_completed;
    m_rows = std::move(r.rows);
    m_model->setRows(m_timeline, m_rows);
    m_table->setColumnHidden(StatsTableModel::Run, !m_model->hasRuns());
    if (m_scope->currentIndex() == 2 && !m_boxTracks.empty())
        m_status->setText(tr("%1 names in %2 on %3 threads (box)")
                              .arg(m_model->rowCount())
                              .arg(formatDuration(std::abs(m_boxEnd - m_boxStart)))
                              .arg(m_boxTracks.size()));
    else if (m_scope->currentIndex() == 2)
        m_status->setText(tr("%1 names · no box selected (Shift+drag in the timeline): whole job")
                              .arg(m_model->rowCount()));
    else if (rangeScoped())
        m_status->setText(tr("%1 names in %2")
                              .arg(m_model->rowCount())
                              .arg(formatDuration(m_rangeEnd - m_rangeStart)));
    else if (m_scope->currentIndex() == 1)
        m_status->setText(tr("%1 names · no range selected: whole job").arg(m_model->rowCount()));
    else
        m_status->setText(tr("%1 names").arg(m_model->rowCount()));
    // The chart follows the scope: the chosen name again, from the new rows.
    if (m_chartName)
        chooseName(*m_chartName);
    emit statsReady();
}

QString StatsPanel::statusText() const
{
    return m_status->text();
}

bool StatsPanel::rangeScoped() const
{
    return m_scope->currentIndex() == 1 && m_rangeEnd > m_rangeStart;
}

bool StatsPanel::selectName(uint32_t nameId)
{
    for (int pass = 0; pass < 2; ++pass) {
        for (int r = 0; r < m_proxy->rowCount(); ++r) {
            const QModelIndex i = m_proxy->index(r, StatsTableModel::Name);
            if (i.data(StatsTableModel::NameIdRole).toUInt() == nameId) {
                m_table->setCurrentIndex(i);
                m_table->scrollTo(i);
                chooseName(nameId, i.data(StatsTableModel::RunRole).toString());
                return true;
            }
        }
        if (m_filter->text().isEmpty())
            break;
        m_filter->clear(); // the filter hid it
    }
    return false;
}

void StatsPanel::chooseName(uint32_t nameId, const QString &run)
{
    if (!m_timeline)
        return;
    m_chartName = nameId;
    if (!run.isEmpty())
        m_chartRun = run;
    // A comparison: the chart is of one run (the chosen row's; A until one is chosen).
    bool runs = false;
    for (const Worker &w : m_timeline->workers)
        runs = runs || !w.info.run.empty();
    if (!runs)
        m_chartRun.clear();
    else if (m_chartRun.isEmpty())
        m_chartRun = QStringLiteral("A");
    const std::string chartRun = m_chartRun.toStdString();
    const std::string_view n = m_timeline->names.name(nameId);
    QString title = QString::fromUtf8(n.data(), qsizetype(n.size()));
    if (!m_chartRun.isEmpty())
        title += tr(" (run %1)").arg(m_chartRun);
    std::vector<RankBarChart::Bar> bars;
    if (RankOutliers::isWait(*m_timeline, nameId) && !runs) {
        // A wait: who made the others wait (blame), never who waited longest.
        std::vector<bool> culprits;
        if (m_diagnosis)
            for (size_t k = 0; k < m_diagnosis->ranks.size(); ++k) {
                const DiagnosisRank &r = m_diagnosis->ranks[k];
                bars.push_back({r.rank, r.blameNs});
                culprits.push_back(r.culprit);
            }
        m_chart->setBlame(title, std::move(bars), std::move(culprits));
    } else {
        for (const StatsRow &r : m_rows)
            if (r.nameId == nameId && r.rank && r.run == chartRun)
                bars.push_back({*r.rank, r.meanNs});
        m_chart->setData(title, std::move(bars));
    }
    startHistogram();
}

void StatsPanel::setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis)
{
    m_diagnosis = std::move(diagnosis);
    if (m_chartName && m_timeline && RankOutliers::isWait(*m_timeline, *m_chartName))
        chooseName(*m_chartName); // the blame arrived
}

void StatsPanel::startHistogram()
{
    if (!m_timeline || !m_chartName)
        return;
    ++m_histJob;
    if (m_histWatcher.isRunning()) {
        m_histPending = true;
        return;
    }
    const uint64_t id = m_histJob;
    const uint32_t name = *m_chartName;
    StatsQuery query = currentQuery();
    if (!m_chartRun.isEmpty()) {
        // One run of a comparison: only its workers' tracks (within the box, if any).
        const std::string run = m_chartRun.toStdString();
        std::vector<std::pair<uint32_t, uint32_t>> tracks;
        for (size_t w = 0; w < m_timeline->workers.size(); ++w)
            if (m_timeline->workers[w].info.run == run)
                for (size_t t = 0; t < m_timeline->workers[w].tracks.size(); ++t)
                    if (query.includes(w, t))
                        tracks.emplace_back(uint32_t(w), uint32_t(t));
        if (tracks.empty())
            tracks.emplace_back(UINT32_MAX, UINT32_MAX); // none: an empty list would mean all
        query.tracks = std::move(tracks);
    }
    std::shared_ptr<const Timeline> timeline = m_timeline;
    m_histWatcher.setFuture(QtConcurrent::run([id, name, timeline, query] {
        return HistogramResult{id, timeline, Stats::histogram(*timeline, name, query)};
    }));
}

} // namespace syncline::ui
