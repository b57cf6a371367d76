#include "liveattachment.h"

#include "livecontroller.h"
#include "mainmenus.h"
#include "mainwindow.h"
#include "statspanel.h"
#include "timelineview.h"
#include "workertablemodel.h"

#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QScrollBar>
#include <QShortcut>
#include <QSortFilterProxyModel>
#include <QStatusBar>
#include <QTableView>

#include <algorithm>

namespace syncline::ui {

LiveAttachment *LiveAttachment::attach(MainWindow *window, const LiveOptions &options,
                                       const FollowOptions &follow, QString *error)
{
    for (LiveAttachment *old :
         window->findChildren<LiveAttachment *>(QString(), Qt::FindDirectChildrenOnly))
        delete old;
    auto *a = new LiveAttachment(window, options, follow);
    if (!a->m_controller->error().isEmpty()) {
        if (error)
            *error = a->m_controller->error();
        delete a;
        return nullptr;
    }
    return a;
}

void LiveAttachment::attachDialog(MainWindow *window)
{
    const QString dir = QFileDialog::getExistingDirectory(
        window, tr("Attach to a running job — choose its log directory"));
    if (dir.isEmpty())
        return;
    LiveOptions o;
    o.path = dir.toStdString();
    QString error;
    if (!attach(window, o, {}, &error))
        QMessageBox::warning(window, tr("Attach"), error);
}

LiveAttachment::LiveAttachment(MainWindow *window, const LiveOptions &options,
                               const FollowOptions &follow)
    : QObject(window), m_window(window), m_dir(QString::fromStdString(options.path)),
      m_controller(new LiveController(options, follow, this)), m_model(new WorkerTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(WorkerTableModel::SortRole);
    m_table = new QTableView;
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(WorkerTableModel::Rank, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex &i) {
        jumpToWorker(m_proxy->data(i, WorkerTableModel::WorkerRole).toInt());
    });
    window->view()->setPlaceholder(tr("Attached, waiting for logs in %1").arg(m_dir));
    m_dock = new QDockWidget(tr("Workers"), window);
    m_dock->setObjectName(QStringLiteral("workersDock"));
    m_dock->setWidget(m_table);
    window->addDockWidget(Qt::RightDockWidgetArea, m_dock);
    window->menus()->addDockToggle(m_dock);
    // State readable at the default width: the short columns size to their contents.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(WorkerTableModel::File, QHeaderView::Stretch);
    m_dock->setMinimumWidth(360);
    // The controller reports when the files change; a quiet worker's silence still grows.
    m_tick.setInterval(1000);
    connect(&m_tick, &QTimer::timeout, this, [this] {
        if (m_controller->timeline())
            m_model->refresh(*m_controller->timeline(), m_controller->workers());
    });
    m_tick.start();
    m_status = new QLabel;
    window->statusBar()->addPermanentWidget(m_status);
    m_end = new QShortcut(QKeySequence(Qt::Key_End), window);
    connect(m_end, &QShortcut::activated, this, [this] { setFollowing(true); });
    connect(window->view()->zoomControl(), &ZoomControl::rangeChanged, this, [this] {
        if (!m_applying && m_following) {
            m_following = false; // the user panned or zoomed
            updateStatus();
        }
    });
    connect(window, &MainWindow::loadFinished, this, [this] { deleteLater(); });
    connect(m_controller, &LiveController::updated, this, &LiveAttachment::onUpdated);
    m_statsTimer.setSingleShot(true);
    connect(&m_statsTimer, &QTimer::timeout, this, &LiveAttachment::snapshotStats);
    if (auto *statsDock = window->findChild<QDockWidget *>(QStringLiteral("stats")))
        connect(statsDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
            if (visible && m_statsDirty && !m_statsTimer.isActive())
                snapshotStats();
        });
    updateStatus();
}

LiveAttachment::~LiveAttachment()
{
    delete m_dock.data();
    delete m_status.data();
    delete m_end.data();
}

void LiveAttachment::onUpdated(const LiveUpdate &u)
{
    m_model->refresh(*m_controller->timeline(), m_controller->workers());
    updateStatus();
    if (m_controller->workers().empty() || (m_shown && !u.changed()))
        return;
    showUpdate(u);
    m_window->setLiveWorkerStatus(m_controller->workers());
    m_statsDirty = true;
    if (!statsVisible() || m_statsTimer.isActive())
        return;
    const qint64 gap = std::max<qint64>(1000, 10 * m_lastStatsCostMs);
    const qint64 elapsed = m_sinceStats.isValid() ? m_sinceStats.elapsed() : gap;
    m_statsTimer.start(int(std::max<qint64>(0, gap - elapsed)));
}

// The window shows the live Timeline itself: the first update attaches it, later ones are
// applied incrementally (no copy, no rebuild).
void LiveAttachment::showUpdate(const LiveUpdate &u)
{
    m_applying = true;
    if (!m_shown) {
        m_shown = m_controller->timeline();
        m_window->setLiveTimeline(m_shown, {m_dir});
    } else {
        m_window->liveUpdated(u);
    }
    m_shownNow = m_controller->nowNs();
    if (m_following)
        applyFollow();
    m_applying = false;
    ++m_refreshes;
    emit refreshed();
}

bool LiveAttachment::statsVisible() const
{
    return m_window->statsPanel()->isVisible();
}

// The stats run off the GUI thread, so they get a copy of the live Timeline (O(events); only
// while the stats panel is visible, throttled in onUpdated).
void LiveAttachment::snapshotStats()
{
    if (!m_shown || !m_statsDirty || !statsVisible())
        return;
    QElapsedTimer cost;
    cost.start();
    m_window->statsPanel()->setTimeline(std::make_shared<const Timeline>(*m_shown),
                                        m_window->view()->scene()->clockMode());
    m_statsDirty = false;
    m_lastStatsCostMs = cost.elapsed();
    m_sinceStats.start();
    ++m_statsSnapshots;
}

void LiveAttachment::applyFollow()
{
    ZoomControl *zoom = m_window->view()->zoomControl();
    const int64_t now = std::min(m_shownNow, zoom->traceEnd());
    const bool was = m_applying;
    m_applying = true;
    zoom->setRange(std::max(zoom->traceStart(), now - m_followWidthNs), now);
    m_applying = was;
}

void LiveAttachment::setFollowing(bool on)
{
    if (on && !m_following) {
        ZoomControl *zoom = m_window->view()->zoomControl();
        m_followWidthNs = std::max<int64_t>(ZoomControl::kMinRangeNs, zoom->rangeDuration());
    }
    m_following = on;
    if (on && m_shown)
        applyFollow();
    updateStatus();
}

void LiveAttachment::jumpToWorker(int liveWorker)
{
    const std::vector<LiveWorkerStatus> &workers = m_controller->workers();
    TimelineView *view = m_window->view();
    if (!m_shown || liveWorker < 0 || size_t(liveWorker) >= workers.size() || !view->scene())
        return;
    const std::string &file = workers[size_t(liveWorker)].sourceFile;
    const auto &models = view->scene()->models();
    for (size_t m = 0; m < models.size(); ++m) {
        if (models[m].count() == 0 || m_shown->workers[models[m].worker()].info.sourceFile != file)
            continue;
        setFollowing(false);
        m_applying = true;
        view->selectEvent({int(m), models[m].count() - 1}, true);
        m_applying = false;
        return;
    }
}

void LiveAttachment::updateStatus()
{
    if (!m_status)
        return;
    const QString counts = tr("%1 running · %2 silent · %3 finished · %4 ended")
                               .arg(m_model->count(WorkerState::Running))
                               .arg(m_model->count(WorkerState::Silent))
                               .arg(m_model->count(WorkerState::Finished))
                               .arg(m_model->count(WorkerState::EndedWithoutClose));
    m_status->setText((m_following ? tr("● live, following") : tr("● live (End: follow)")) +
                      QStringLiteral(" · ") + counts);
}

} // namespace syncline::ui
