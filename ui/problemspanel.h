// ProblemsPanel — what went wrong while loading (file:line: message), most severe first; the
// valid data is shown regardless. Dismiss hides the panel until the next load with problems.
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

signals:
    void dismissed();

private:
    QListWidget *m_list;
    QLabel *m_summary;
};

} // namespace syncline::ui
