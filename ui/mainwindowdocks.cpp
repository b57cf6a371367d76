// MainWindow: the docks (built, tabbed, sized on the first show) and the navigation keys that
// work from any dock (eventFilter).
#include "clockpanel.h"
#include "comparecontroller.h"
#include "comparepanel.h"
#include "detailspanel.h"
#include "diagnosiscontroller.h"
#include "mainwindow.h"
#include "problemspanel.h"
#include "statspanel.h"
#include "stepgraph.h"
#include "steppanel.h"
#include "timelineview.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QKeyEvent>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QShowEvent>
#include <QTextEdit>

#include <algorithm>

namespace syncline::ui {

namespace {

// A widget that takes typed text: single-letter keys stay with it.
bool takesText(const QWidget *w)
{
    if (qobject_cast<const QLineEdit *>(w) || qobject_cast<const QAbstractSpinBox *>(w))
        return true;
    if (const auto *c = qobject_cast<const QComboBox *>(w))
        return c->isEditable();
    if (const auto *t = qobject_cast<const QTextEdit *>(w))
        return !t->isReadOnly();
    if (const auto *t = qobject_cast<const QPlainTextEdit *>(w))
        return !t->isReadOnly();
    return false;
}

// Set while eventFilter sends a navigation key to the view (GUI thread only).
bool forwardingKey = false;

} // namespace

// The view's navigation keys (W/A/S/D, F, Home, Esc) work wherever the focus is in this window
// (a dock, the stats table, the overview) — except in widgets that take text, and except for
// keys with Ctrl/Alt/Meta, which stay menu shortcuts.
bool MainWindow::eventFilter(QObject *watched, QEvent *event)
{
    // End (back to live follow, a window shortcut) works from a dock too: a list or table that
    // would take End for itself does not get to override the shortcut.
    if (event->type() == QEvent::ShortcutOverride) {
        auto *w = qobject_cast<QWidget *>(watched);
        const auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_End && key->modifiers() == Qt::NoModifier && w &&
            w->window() == this && !takesText(w))
            return true; // not accepted: the shortcut fires
    }
    if ((event->type() == QEvent::KeyPress || event->type() == QEvent::KeyRelease) && m_scene) {
        auto *w = qobject_cast<QWidget *>(watched);
        auto *key = static_cast<QKeyEvent *>(event);
        static const int keys[] = {Qt::Key_W, Qt::Key_A,    Qt::Key_S,     Qt::Key_D,
                                   Qt::Key_F, Qt::Key_Home, Qt::Key_Escape};
        const bool nav = std::find(std::begin(keys), std::end(keys), key->key()) != std::end(keys);
        const bool plain = !(key->modifiers() & (Qt::ControlModifier | Qt::AltModifier |
                                                 Qt::MetaModifier | Qt::ShiftModifier));
        // Releases too, of W/S/A/D: a held key moves until it is released (KeyMotion).
        const bool motion = key->key() == Qt::Key_W || key->key() == Qt::Key_A ||
                            key->key() == Qt::Key_S || key->key() == Qt::Key_D;
        const bool forward = event->type() == QEvent::KeyPress || motion;
        // A forwarded event the view ignores propagates to its parents: not forwarded again.
        if (nav && plain && forward && !forwardingKey && w && w->window() == this &&
            w != m_view && !m_view->isAncestorOf(w) && !takesText(w)) {
            QKeyEvent copy(event->type(), key->key(), key->modifiers(), key->text(),
                           key->isAutoRepeat());
            forwardingKey = true;
            QCoreApplication::sendEvent(m_view, &copy);
            forwardingKey = false;
            return true;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::buildDocks()
{
    auto dock = [this](const QString &title, const QString &name, QWidget *w,
                       Qt::DockWidgetArea area) {
        auto *d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    dock(tr("Details"), QStringLiteral("details"), m_details, Qt::RightDockWidgetArea);
    QDockWidget *stats =
        dock(tr("Statistics"), QStringLiteral("stats"), m_stats, Qt::BottomDockWidgetArea);
    QDockWidget *clocks =
        dock(tr("Clocks"), QStringLiteral("clocks"), m_clocks, Qt::BottomDockWidgetArea);
    m_problemsDock =
        dock(tr("Problems"), QStringLiteral("problems"), m_problems, Qt::BottomDockWidgetArea);
    m_compare = new CompareController(this);
    m_comparePanel = new ComparePanel(m_compare, this);
    m_compareDock =
        dock(tr("Compare"), QStringLiteral("compare"), m_comparePanel, Qt::BottomDockWidgetArea);
    m_diagnoser = new DiagnosisController(this);
    m_steps = new StepPanel(this);
    m_stepsDock = dock(tr("Steps"), QStringLiteral("steps"), m_steps, Qt::BottomDockWidgetArea);
    tabifyDockWidget(stats, m_stepsDock); // beside Statistics; raised when a culprit is named
    connect(m_diagnoser, &DiagnosisController::ready, this, &MainWindow::onDiagnosisReady);
    connect(m_steps, &StepPanel::stepActivated, this, &MainWindow::zoomToStep);
    connect(m_steps, &StepPanel::cellActivated, this, [this](int step, int worker) {
        zoomToStep(step);
        if (!m_scene || worker < 0 || size_t(worker) >= m_timeline->workers.size())
            return;
        m_view->revealRow(m_scene->layout().headerOf(worker));
    });
    tabifyDockWidget(stats, clocks);
    tabifyDockWidget(clocks, m_problemsDock);
    tabifyDockWidget(m_problemsDock, m_compareDock);
    m_compareDock->hide();
    stats->raise();
    m_problemsDock->hide();
    resizeDocks({findChild<QDockWidget *>(QStringLiteral("details"))}, {300}, Qt::Horizontal);
    connect(m_problems, &ProblemsPanel::dismissed, m_problemsDock, &QDockWidget::hide);
    connect(m_problems, &ProblemsPanel::problemActivated, this, &MainWindow::showProblem);
}

// The timeline keeps most of the height: the bottom docks (tabbed) take at most a fifth of
// the window when it first shows, whatever size a saved state gave them.
void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    if (m_docksSized)
        return;
    m_docksSized = true;
    auto *stats = findChild<QDockWidget *>(QStringLiteral("stats"));
    const int cap = std::max(150, height() / 5);
    if (stats && stats->isVisible() && !stats->isFloating() && stats->height() > cap)
        resizeDocks({stats}, {cap}, Qt::Vertical);
}

} // namespace syncline::ui
