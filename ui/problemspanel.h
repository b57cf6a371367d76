// ProblemsPanel — what went wrong while loading (file:line: message), most severe first; the
// valid data is shown regardless. Dismiss hides the panel until the next load with problems.
// Activating an entry (double-click, Enter) asks to show where it is (problemActivated):
// MainWindow selects the event at the problem's thread and time, or the worker of its file.
// Threading: GUI thread only.
#pragma once

#include "timeline/model/loadproblem.h"

#include <QWidget>

#include <vector>

class QListWidget;
class QLabel;

namespace syncline::ui {

class ProblemsPanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProblemsPanel(QWidget *parent = nullptr);
    void setProblems(const std::vector<LoadProblem> &problems);
    int count() const;
    QString itemText(int row) const;

    // The problem shown in `row` (display order: most severe first).
    const LoadProblem &problemAt(int row) const { return m_sorted[size_t(row)]; }

signals:
    void dismissed();
    void problemActivated(const syncline::LoadProblem &problem);

private:
    QListWidget *m_list;
    QLabel *m_summary;
    std::vector<LoadProblem> m_sorted;
};

} // namespace syncline::ui
