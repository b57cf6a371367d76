// ClockPanel — the clock-correction table (ClockModel behind a sort proxy), the engine's notes
// and causality report, and the raw/corrected toggle that redraws the timeline in place.
// Threading: GUI thread only.
#pragma once

#include "clockmodel.h"

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
    ClockModel *model() const { return m_model; }
    QCheckBox *correctedToggle() const { return m_corrected; }

signals:
    void clockModeChanged(syncline::ClockMode mode);

private:
    ClockModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QCheckBox *m_corrected;
    QLabel *m_notes;
};

} // namespace syncline::ui
