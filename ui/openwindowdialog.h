// OpenWindowDialog — File ▸ Open window…: a job (directory, timer_config.json or logs) and a
// window [A, B] in seconds from the job's earliest event. When the job has an index (a full load
// wrote it), the dialog shows the job's span and event count, from JobLoader::indexedSpan
// (the ui never reads the logs itself); the window is then read from the index, else the job is
// loaded whole once and cut (which writes the index for next time).
// Threading: GUI thread.
#pragma once

#include "timeline/load/jobloader.h"

#include <QDialog>

class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QDialogButtonBox;

namespace syncline::ui {

class OpenWindowDialog : public QDialog
{
    Q_OBJECT
public:
    explicit OpenWindowDialog(QWidget *parent = nullptr);
    void setPath(const QString &path);
    QString path() const;
    // The window relative to the job's origin in corrected (or raw) clocks.
    LoadWindow window(ClockMode mode = ClockMode::Corrected) const;
    QLabel *spanLabel() const { return m_span; }
    QDoubleSpinBox *beginBox() const { return m_begin; }
    QDoubleSpinBox *endBox() const { return m_end; }

private:
    void updateSpan();

    QLineEdit *m_path;
    QLabel *m_span;
    QDoubleSpinBox *m_begin;
    QDoubleSpinBox *m_end;
    QDialogButtonBox *m_buttons;
};

} // namespace syncline::ui
