#include "problemspanel.h"

#include <QApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

#include <algorithm>

namespace syncline::ui {

ProblemsPanel::ProblemsPanel(QWidget *parent)
    : QWidget(parent), m_list(new QListWidget(this)), m_summary(new QLabel(this))
{
    auto *dismiss = new QPushButton(tr("Dismiss"), this);
    auto *top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(dismiss);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_list, 1);
    m_list->setAlternatingRowColors(true);
    connect(dismiss, &QPushButton::clicked, this, &ProblemsPanel::dismissed);
    connect(m_list, &QListWidget::itemActivated, this, [this](QListWidgetItem *item) {
        const int row = m_list->row(item);
        if (row >= 0 && size_t(row) < m_sorted.size())
            emit problemActivated(m_sorted[size_t(row)]);
    });
}

void ProblemsPanel::setProblems(const std::vector<LoadProblem> &problems)
{
    m_list->clear();
    m_sorted.clear();
    std::vector<const LoadProblem *> sorted;
    for (const LoadProblem &p : problems)
        sorted.push_back(&p);
    std::stable_sort(sorted.begin(), sorted.end(), [](const LoadProblem *a, const LoadProblem *b) {
        return int(a->severity) > int(b->severity);
    });
    int errors = 0;
    for (const LoadProblem *p : sorted) {
        QStyle::StandardPixmap icon =
            p->severity == LoadProblem::Severity::Error     ? QStyle::SP_MessageBoxCritical
            : p->severity == LoadProblem::Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                            : QStyle::SP_MessageBoxInformation;
        errors += p->severity == LoadProblem::Severity::Error;
        auto *item =
            new QListWidgetItem(style()->standardIcon(icon), QString::fromStdString(p->toString()));
        m_list->addItem(item);
        m_sorted.push_back(*p);
    }
    m_summary->setText(
        tr("%1 problem(s) found while loading (%2 errors); everything valid is shown.")
            .arg(problems.size())
            .arg(errors));
}

int ProblemsPanel::count() const
{
    return m_list->count();
}

QString ProblemsPanel::itemText(int row) const
{
    return m_list->item(row)->text();
}

} // namespace syncline::ui
