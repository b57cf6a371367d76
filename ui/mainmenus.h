// MainMenus — the viewer's menu bar: File (open files/directory, attach, recent files, exports,
// quit), View (find, fit, raw clocks, wall-clock ruler, collapse/expand all, colour by category,
// links, dark theme, the docks) and Help (keyboard shortcuts, about). It owns the checkable actions
// and the recent-files list (QSettings "recentFiles", newest first, at most 10 entries, one
// entry per opened set of paths) and acts only through MainWindow's public interface.
// Threading: GUI thread only.
#pragma once

#include <QObject>
#include <QStringList>

class QAction;
class QMenu;
class QDockWidget;

namespace syncline::ui {

class MainWindow;

class MainMenus : public QObject
{
    Q_OBJECT
public:
    static constexpr int kMaxRecent = 10;

    explicit MainMenus(MainWindow *window); // builds the menus into window->menuBar()

    QAction *rawAction() const { return m_raw; }
    QAction *wallClockAction() const { return m_wall; }
    QAction *categoryAction() const { return m_category; }
    QAction *darkAction() const { return m_dark; }
    QAction *linksAction() const { return m_links; } // View ▸ Links (Ctrl+L)
    // Clocks ▸ Align clocks on collectives (checked unless the job was loaded with --no-align).
    QAction *alignCollectivesAction() const { return m_alignCollectives; }
    // Sets a checkable action's state without emitting toggled (the window already is there).
    static void setChecked(QAction *action, bool on);
    // A dock created after the menus (the live Workers dock): its show/hide entry in View.
    void addDockToggle(QDockWidget *dock);

    static QStringList recentFiles();
    void addRecent(const QStringList &paths);

private:
    void buildFileMenu();
    void buildViewMenu();
    void buildClocksMenu(); // raw/corrected, alignment on collectives on/off, Align on collective…
    void buildHelpMenu();
    void rebuildRecentMenu();
    void showShortcuts();

    MainWindow *m_window;
    QMenu *m_recentMenu = nullptr;
    QAction *m_raw = nullptr;
    QAction *m_wall = nullptr;
    QAction *m_category = nullptr;
    QAction *m_dark = nullptr;
    QAction *m_links = nullptr;
    QAction *m_alignCollectives = nullptr;
    QMenu *m_view = nullptr;
};

} // namespace syncline::ui
