// ComparePanel — the Compare dock: a summary of the two runs (step time A vs B, spans, the
// anchor and B's shift, ranks in one run only), the anchor box (start, NAME or NAME:K), the
// layout (Stacked / Interleaved by rank), "Per rank" rows, and the delta table
// (CompareTableModel) in impact order. Clicking a row asks the window to find that name.
// Threading: GUI thread; reads the CompareController it is given.
#pragma once

#include "comparetablemodel.h"

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace syncline::ui {

class CompareController;

class ComparePanel : public QWidget
{
    Q_OBJECT
public:
    explicit ComparePanel(CompareController *controller, QWidget *parent = nullptr);

    CompareTableModel *model() const { return m_model; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QTableView *table() const { return m_table; }
    QLineEdit *anchorEdit() const { return m_anchor; }
    QComboBox *layoutBox() const { return m_layout; } // 0 Stacked, 1 Interleaved by rank
    QCheckBox *perRankBox() const { return m_perRank; }
    QString summaryText() const;
    void refresh(); // from the controller's current state

signals:
    void nameActivated(const QString &name);

private:
    void applyAnchor();

    CompareController *m_controller;
    CompareTableModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QTableView *m_table;
    QLabel *m_summary;
    QLineEdit *m_anchor;
    QComboBox *m_layout;
    QCheckBox *m_perRank;
};

} // namespace syncline::ui
