#include "clockpanel.h"

#include "timeformat.h"

#include "timeline/report/wallclocksummary.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace syncline::ui {

ClockPanel::ClockPanel(QWidget *parent)
    : QWidget(parent), m_model(new ClockTableModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_table(new QTableView(this)),
      m_corrected(new QCheckBox(tr("Corrected clocks (uncheck to see raw local clocks)"), this)),
      m_notes(new QLabel(this)), m_wall(new QLabel(this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ClockTableModel::SortRole);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(ClockTableModel::Worker, Qt::AscendingOrder);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(ClockTableModel::Flags, QHeaderView::Stretch);
    m_table->setWordWrap(false);
    m_table->setAlternatingRowColors(true);
    m_corrected->setChecked(true);
    m_notes->setWordWrap(true);
    m_wall->setObjectName(QStringLiteral("wallClockHeadline"));
    m_wall->setWordWrap(true);
    m_wall->setTextFormat(Qt::PlainText);
    m_wall->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_wall->hide();
    m_notes->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_corrected);
    layout->addWidget(m_wall);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_notes);
    connect(m_corrected, &QCheckBox::toggled, this,
            [this](bool on) { emit clockModeChanged(on ? ClockMode::Corrected : ClockMode::Raw); });
}

void ClockPanel::setTimeline(std::shared_ptr<const Timeline> timeline)
{
    QStringList lines;
    if (timeline) {
        const sync::CausalityReport &c = timeline->causality;
        if (c.constraints > 0)
            lines << tr("Causality: %1 constraints, %2 violations before repair, %3 after; %4 "
                        "events moved (max %5).")
                         .arg(c.constraints)
                         .arg(c.violationsBefore)
                         .arg(c.violationsAfter)
                         .arg(c.eventsMoved)
                         .arg(formatDuration(c.maxShiftNs));
        for (const std::string &n : timeline->clockNotes)
            lines << QString::fromStdString(n).toHtmlEscaped();
    }
    m_notes->setText(lines.join(QStringLiteral("<br>")));
    const std::string wall = timeline ? WallClockSummary::of(*timeline).headline : std::string();
    m_wall->setText(QString::fromStdString(wall));
    m_wall->setVisible(!wall.empty());
    m_model->setTimeline(std::move(timeline));
}

void ClockPanel::setCorrected(bool corrected)
{
    const QSignalBlocker block(m_corrected);
    m_corrected->setChecked(corrected);
}

} // namespace syncline::ui
