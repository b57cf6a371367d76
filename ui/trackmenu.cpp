#include "trackmenu.h"

#include "timeformat.h"
#include "timelineview.h"

#include <QAction>
#include <QClipboard>
#include <QGuiApplication>
#include <QMenu>
#include <QRegularExpression>

#include <algorithm>

namespace syncline::ui {

TrackMenu::TrackMenu(TimelineView *view, Hooks hooks, QObject *parent)
    : QObject(parent), m_view(view), m_hooks(std::move(hooks))
{
}

void TrackMenu::changed()
{
    if (m_hooks.sceneChanged)
        m_hooks.sceneChanged();
}

namespace {

QAction *add(QMenu *menu, const QString &text, const char *name, std::function<void()> fn)
{
    QAction *a = menu->addAction(text);
    a->setObjectName(QString::fromLatin1(name));
    QObject::connect(a, &QAction::triggered, menu, std::move(fn));
    return a;
}

QString workerTitle(const TimelineScene &scene, int worker)
{
    return QString::fromStdString(scene.timeline().workers[size_t(worker)].label());
}

} // namespace

QMenu *TrackMenu::menuAt(QPoint pos, QWidget *parent)
{
    TimelineScene *scene = m_view->scene();
    if (!scene || pos.y() < TimelineView::kRulerHeight)
        return nullptr;
    const int rowIndex = scene->layout().rowAt(m_view->contentY(pos.y()));
    auto *menu = new QMenu(parent);
    if (rowIndex >= 0) {
        const LayoutRow row = scene->layout().rows()[size_t(rowIndex)];
        const EventRef ref = pos.x() >= m_view->gutterWidth() ? m_view->eventAt(pos) : EventRef{};
        if (ref.valid()) {
            addEventActions(menu, ref);
            menu->addSeparator();
        } else if (row.kind == LayoutRow::EventRow && row.model >= 0) {
            const int m = row.model;
            const QString label = scene->threadLabel(m);
            addThreadPin(menu, m);
            add(menu, tr("Hide thread %1").arg(label), "hideThread", [this, m] {
                m_view->scene()->setTrackHidden(m, true);
                changed();
            });
            add(menu, tr("Copy thread name"), "copyName",
                [label] { QGuiApplication::clipboard()->setText(label); });
            menu->addSeparator();
        }
        addWorkerActions(menu, row.worker);
    }
    addHiddenActions(menu);
    return menu;
}

void TrackMenu::addWorkerActions(QMenu *menu, int w)
{
    TimelineScene *scene = m_view->scene();
    const QString title = workerTitle(*scene, w);
    QMenu *sub = menu;
    if (!menu->isEmpty()) { // an event's or a thread's menu: the worker's actions in a submenu
        sub = menu->addMenu(title);
        sub->setObjectName(QStringLiteral("workerMenu"));
    }
    const bool pinned = scene->isPinned(w);
    add(sub, pinned ? tr("Unpin") : tr("Pin to top"), "pin", [this, w, pinned] {
        m_view->scene()->setPinned(w, !pinned);
        changed();
    });
    add(sub, tr("Hide worker"), "hideWorker", [this, w] {
        m_view->scene()->setWorkerHidden(w, true);
        changed();
    });
    add(sub, tr("Show only this worker"), "showOnly", [this, w] {
        m_view->scene()->showOnlyWorker(w);
        changed();
    });
    add(sub, tr("Zoom to worker"), "zoomTo", [this, w] {
        const TimelineScene *s = m_view->scene();
        const auto [first, last] = s->modelsOf(w);
        int64_t b = std::numeric_limits<int64_t>::max(), e = std::numeric_limits<int64_t>::min();
        for (int m = first; m < last; ++m) {
            const TrackModel &tm = s->model(m);
            for (int i = 0; i < tm.count(); ++i) {
                b = std::min(b, tm.startTime(i, s->clockMode()));
                e = std::max(e, tm.endTime(i, s->clockMode()));
            }
        }
        if (e > b)
            m_view->zoomControl()->setRange(b, e);
        m_view->revealRow(s->layout().headerOf(w));
    });
    const bool collapsed = scene->isCollapsed(w);
    add(sub, collapsed ? tr("Expand") : tr("Collapse"), "collapse", [this, w, collapsed] {
        m_view->scene()->setCollapsed(w, !collapsed);
        changed();
    });
    add(sub, tr("Copy worker name"), sub == menu ? "copyName" : "copyWorkerName",
        [title] { QGuiApplication::clipboard()->setText(title); });
}

// Pin or unpin one thread (its worker pinned as a whole already holds it above the scroll area).
void TrackMenu::addThreadPin(QMenu *menu, int m)
{
    const TimelineScene *scene = m_view->scene();
    const bool pinned = scene->isTrackPinned(m);
    QAction *a = add(menu,
                     pinned ? tr("Unpin thread %1").arg(scene->threadLabel(m))
                            : tr("Pin thread %1 to top").arg(scene->threadLabel(m)),
                     "pinThread", [this, m, pinned] {
                         m_view->scene()->setTrackPinned(m, !pinned);
                         changed();
                     });
    a->setEnabled(pinned || !scene->isPinned(int(scene->model(m).worker())));
}

void TrackMenu::addEventActions(QMenu *menu, const EventRef &ref)
{
    const TimelineScene *scene = m_view->scene();
    const TrackModel &tm = scene->model(ref.model);
    const EventDetails d = tm.details(ref.index, scene->clockMode());
    const QString name = QString::fromStdString(d.name);
    const uint32_t nameId = tm.nameId(ref.index);
    add(menu, tr("Zoom to event"), "zoomTo", [this, ref] {
        m_view->selectEvent(ref, false);
        m_view->zoomToEvent(ref);
    });
    add(menu, tr("Find all “%1”").arg(name), "findName", [this, name] {
        if (m_hooks.findAll)
            m_hooks.findAll(name);
    });
    add(menu, tr("Show “%1” in Statistics").arg(name), "showStats", [this, nameId] {
        if (m_hooks.showInStats)
            m_hooks.showInStats(nameId);
    });
    menu->addSeparator();
    add(menu, tr("Copy name"), "copyName", [name] { QGuiApplication::clipboard()->setText(name); });
    QAction *args = add(menu, tr("Copy args"), "copyArgs", [a = QString::fromStdString(d.args)] {
        QGuiApplication::clipboard()->setText(a);
    });
    args->setEnabled(!d.args.empty());
    const int64_t origin = scene->originNs();
    const QString time = tr("%1 – %2 (%3)")
                             .arg(formatDuration(d.startNs - origin, 9),
                                  formatDuration(d.endNs - origin, 9),
                                  formatDuration(d.endNs - d.startNs, 9));
    add(menu, tr("Copy time"), "copyTime", [time] { QGuiApplication::clipboard()->setText(time); });
    menu->addSeparator();
    const int m = ref.model;
    addThreadPin(menu, m);
    add(menu, tr("Hide thread %1").arg(scene->threadLabel(m)), "hideThread", [this, m] {
        m_view->scene()->setTrackHidden(m, true);
        changed();
    });
}

void TrackMenu::addHiddenActions(QMenu *menu)
{
    TimelineScene *scene = m_view->scene();
    if (!scene)
        return;
    const std::vector<int> workers = scene->hiddenWorkers();
    const std::vector<int> tracks = scene->hiddenTracks();
    if (workers.empty() && tracks.empty())
        return;
    menu->addSeparator();
    QMenu *sub = menu->addMenu(tr("Hidden (%1)").arg(workers.size() + tracks.size()));
    sub->setObjectName(QStringLiteral("hiddenMenu"));
    for (int w : workers)
        add(sub, tr("Show %1").arg(workerTitle(*scene, w)), "restore", [this, w] {
            m_view->scene()->setWorkerHidden(w, false);
            changed();
        });
    for (int m : tracks)
        add(sub,
            tr("Show %1 · %2")
                .arg(workerTitle(*scene, int(scene->model(m).worker())), scene->threadLabel(m)),
            "restore", [this, m] {
                m_view->scene()->setTrackHidden(m, false);
                changed();
            });
    sub->addSeparator();
    add(sub, tr("Show all"), "showAll", [this] {
        m_view->scene()->showAllHidden();
        changed();
    });
}

} // namespace syncline::ui
