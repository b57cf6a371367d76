// StepPanel — the job's steps as the diagnosis sees them (DiagnosisController's result): the
// ranks × steps heat map (StepHeatMap) with a combo for its colour (compute, duration or wait)
// and a line naming the step and the culprits, for the "Steps" dock; and the step graph
// (StepGraph), which it fills but does not hold: the window shows it as a strip above the
// timeline (graph()), visible while the diagnosis has steps. Clicks ask the window to zoom the
// timeline to a step (stepActivated) and to reveal a worker (cellActivated).
// Threading: GUI thread only.
#pragma once

#include "diagnosiscontroller.h"
#include "stepgraph.h"
#include "stepheatmap.h"

#include <QPointer>
#include <QWidget>

class QComboBox;
class QLabel;

namespace syncline::ui {

class StepPanel : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kLabelColumn = 120; // px, the row labels and the graph's axis

    explicit StepPanel(QWidget *parent = nullptr);
    ~StepPanel() override;
    void setResult(const DiagnosisResult &result);
    void clear(const QString &message = {});
    void setVisibleRange(int64_t startNs, int64_t endNs);
    // The step graph: the caller places it (it has no parent until then; deleted with the
    // panel if never placed).
    StepGraph *graph() const { return m_graph; }
    StepHeatMap *heatMap() const { return m_heatMap; }
    QComboBox *modeBox() const { return m_mode; }
    QString summary() const;
    // Label of a worker in the heat map: "rank · restart" ("A · 3 · 0" in a comparison).
    static QString workerLabel(const WorkerInfo &info);

signals:
    void stepActivated(int step);
    void cellActivated(int step, int worker);

private:
    void updateKey();

    QPointer<StepGraph> m_graph;
    StepHeatMap *m_heatMap;
    QComboBox *m_mode;
    QLabel *m_summary;
    QLabel *m_key; // the heat map's colours for the current mode
};

} // namespace syncline::ui
