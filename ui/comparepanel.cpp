#include "comparepanel.h"

#include "comparecontroller.h"
#include "timeformat.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

namespace syncline::ui {

ComparePanel::ComparePanel(CompareController *controller, QWidget *parent)
    : QWidget(parent), m_controller(controller), m_model(new CompareTableModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_table(new QTableView(this)),
      m_summary(new QLabel(this)), m_anchor(new QLineEdit(this)), m_layout(new QComboBox(this)),
      m_perRank(new QCheckBox(tr("Per rank"), this))
{
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CompareTableModel::SortRole);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(-1, Qt::AscendingOrder); // the model's impact order
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(CompareTableModel::Name,
                                                      QHeaderView::Stretch);
    m_table->setAlternatingRowColors(true);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_anchor->setPlaceholderText(tr("start, NAME or NAME:K"));
    m_anchor->setToolTip(tr("Align B on A: at the start, or at each run's K-th NAME (per rank; "
                            "the earliest rank), e.g. train_step:3"));
    m_anchor->setText(QStringLiteral("start"));
    m_layout->addItems({tr("Stacked (all A, then all B)"), tr("Interleaved by rank")});
    auto *align = new QPushButton(tr("Align"), this);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Anchor:"), this));
    top->addWidget(m_anchor);
    top->addWidget(align);
    top->addWidget(m_layout);
    top->addWidget(m_perRank);
    top->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(top);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    connect(align, &QPushButton::clicked, this, &ComparePanel::applyAnchor);
    connect(m_anchor, &QLineEdit::returnPressed, this, &ComparePanel::applyAnchor);
    connect(m_layout, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_controller->setLayout(i == 1 ? CompareLayout::Interleaved : CompareLayout::Stacked);
    });
    connect(m_perRank, &QCheckBox::toggled, this, [this] { refresh(); });
    connect(m_table, &QTableView::clicked, this, [this](const QModelIndex &index) {
        if (index.isValid())
            emit nameActivated(index.data(CompareTableModel::NameRole).toString());
    });
    connect(m_controller, &CompareController::resultReady, this, &ComparePanel::refresh);
    connect(m_controller, &CompareController::combinedChanged, this, [this] { refresh(); });
}

void ComparePanel::applyAnchor()
{
    CompareAnchor a;
    std::string error;
    const QString text = m_anchor->text().trimmed();
    if (!CompareAnchor::parse((text.isEmpty() ? QStringLiteral("start") : text).toStdString(), &a,
                              &error)) {
        m_summary->setText(tr("Anchor: %1").arg(QString::fromStdString(error)));
        return;
    }
    m_controller->setAnchor(a);
}

void ComparePanel::refresh()
{
    const CompareController *c = m_controller;
    {
        const QSignalBlocker block(m_layout);
        m_layout->setCurrentIndex(c->layout() == CompareLayout::Interleaved ? 1 : 0);
    }
    if (!m_anchor->hasFocus())
        m_anchor->setText(QString::fromStdString(c->anchor().text()));
    m_model->setResult(c->active() ? c->result() : nullptr, m_perRank->isChecked());
    // Columns that say nothing are hidden: Rank without per-rank rows, In when every row is in
    // both runs.
    m_table->setColumnHidden(CompareTableModel::Rank, !m_perRank->isChecked());
    m_table->setColumnHidden(CompareTableModel::In, !m_model->hasOneRunRows());
    if (!c->active()) {
        m_summary->setText(tr("No comparison: File ▸ Compare with… opens a second run (B) beside "
                              "this one (A)."));
        return;
    }
    QStringList lines;
    auto name = [](const QStringList &paths) {
        return paths.isEmpty() ? QString() : QFileInfo(paths.front()).fileName();
    };
    lines << tr("A: %1   B: %2").arg(name(c->pathsA()), name(c->pathsB()));
    const auto r = c->result();
    if (r) {
        lines << QString::fromStdString(r->summaryLine());
        auto list = [](const std::vector<int> &v) {
            QStringList s;
            for (int x : v)
                s << QString::number(x);
            return s.join(QLatin1Char(','));
        };
        if (!r->onlyA.empty() || !r->onlyB.empty())
            lines << tr("ranks only in A: %1; only in B: %2")
                         .arg(r->onlyA.empty() ? tr("none") : list(r->onlyA),
                              r->onlyB.empty() ? tr("none") : list(r->onlyB));
    } else {
        lines << tr("computing…");
    }
    const ClockMode mode = c->clockMode();
    lines << tr("anchor %1: A at %2, B at %3 (from each run's start); B shifted by %4")
                 .arg(QString::fromStdString(c->anchor().text()),
                      formatDuration(c->anchorFromOriginNs(false, mode), 6),
                      formatDuration(c->anchorFromOriginNs(true, mode), 6),
                      formatDuration(c->shiftNs(mode), 6));
    if (!c->anchorNote().isEmpty())
        lines << QStringLiteral("⚠ ") + c->anchorNote();
    m_summary->setText(lines.join(QLatin1Char('\n')));
}

QString ComparePanel::summaryText() const
{
    return m_summary->text();
}

} // namespace syncline::ui
