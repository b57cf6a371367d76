// ClockPanel — the clock-correction table (ClockTableModel behind a sort proxy), the wall-clock
// headline (report/WallClockSummary: every host's wall clock within its band — try --clock wall —
// or which hosts it would be refused for), the engine's notes and causality report, and the
// raw/corrected toggle that redraws the timeline in place.
// Threading: GUI thread only.
#pragma once

#include "clocktablemodel.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QTableView;
class QSortFilterProxyModel;

namespace syncline::ui {

class ClockPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ClockPanel(QWidget *parent = nullptr);
    void setTimeline(std::shared_ptr<const Timeline> timeline);
    void setCorrected(bool corrected); // no signal
    ClockTableModel *model() const { return m_model; }
    QCheckBox *correctedToggle() const { return m_corrected; }
    // The wall-clock headline (WallClockSummary): empty and hidden when there is nothing to say.
    QLabel *wallLabel() const { return m_wall; }

signals:
    void clockModeChanged(syncline::ClockMode mode);

private:
    ClockTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QCheckBox *m_corrected;
    QLabel *m_notes;
    QLabel *m_wall;
};

} // namespace syncline::ui
