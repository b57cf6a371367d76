#include "steppanel.h"

#include "timeformat.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <limits>

namespace syncline::ui {

StepPanel::StepPanel(QWidget *parent)
    : QWidget(parent), m_graph(new StepGraph), m_heatMap(new StepHeatMap(this)),
      m_mode(new QComboBox(this)), m_summary(new QLabel(this)), m_key(new QLabel(this))
{
    m_mode->addItems(
        {tr("Compute ÷ step median"), tr("Duration ÷ step median"), tr("Wait ÷ step median")});
    m_mode->setToolTip(tr("Heat map colour: each rank's compute in the step (its duration minus "
                          "its waits in collectives) relative to the step's median (red: "
                          "slower), its own step duration, or its time waiting in collectives "
                          "(purple: waited for others)"));
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);
    m_heatMap->setLeftMargin(kLabelColumn);
    m_graph->setMinimumHeight(StepGraph::kStripHeight);
    m_graph->setMaximumHeight(StepGraph::kStripHeight);
    m_graph->hide(); // until a diagnosis finds steps
    auto *top = new QHBoxLayout;
    top->setContentsMargins(4, 2, 4, 0);
    top->addWidget(m_mode);
    top->addWidget(m_key);
    top->addSpacing(12);
    top->addWidget(m_summary, 1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(top);
    layout->addWidget(m_heatMap, 1);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this](int i) {
        m_heatMap->setMode(i == 2   ? HeatMode::Wait
                           : i == 1 ? HeatMode::Duration
                                    : HeatMode::Compute);
    });
    connect(m_mode, &QComboBox::currentIndexChanged, this, &StepPanel::updateKey);
    connect(m_graph, &StepGraph::stepClicked, this, &StepPanel::stepActivated);
    connect(m_heatMap, &StepHeatMap::cellActivated, this, &StepPanel::cellActivated);
    updateKey();
    clear();
}

StepPanel::~StepPanel()
{
    if (m_graph && !m_graph->parent())
        delete m_graph.data();
}

// Swatches of the colour scale (heatColour), so the map reads without a tooltip.
void StepPanel::updateKey()
{
    const HeatMode mode = m_heatMap->mode();
    const auto swatch = [mode](float v, const QString &text) {
        return QStringLiteral("<span style='color:%1'>■</span>&nbsp;%2")
            .arg(QColor(heatColour(v, mode)).name(), text);
    };
    QStringList parts;
    if (mode == HeatMode::Wait)
        parts << swatch(0.0f, tr("0")) << swatch(0.25f, tr("¼")) << swatch(0.5f, tr("≥ ½ step"));
    else
        parts << swatch(0.75f, tr("≤ 0.75×")) << swatch(1.0f, tr("1×"))
              << swatch(1.15f, tr("1.15×")) << swatch(1.25f, tr("≥ 1.25×"))
              << swatch(std::numeric_limits<float>::quiet_NaN(), tr("no step"));
    m_key->setText(parts.join(QStringLiteral("&nbsp; ")));
}

QString StepPanel::workerLabel(const WorkerInfo &info)
{
    QString label = QStringLiteral("%1 · %2").arg(info.rank).arg(info.restart);
    if (!info.run.empty())
        label = QString::fromStdString(info.run) + QStringLiteral(" · ") + label;
    return label;
}

void StepPanel::clear(const QString &message)
{
    m_graph->setSeries(nullptr, {}, {});
    m_graph->hide();
    m_heatMap->setDiagnosis(nullptr, nullptr, {}, {});
    m_summary->setText(message.isEmpty() ? tr("no diagnosis yet") : message);
}

void StepPanel::setResult(const DiagnosisResult &r)
{
    if (!r.diagnosis || !r.timeline) {
        clear();
        return;
    }
    const Diagnosis &d = *r.diagnosis;
    const Timeline &tl = *r.timeline;
    std::vector<QString> labels;
    std::vector<uint8_t> culprit(d.workerCount, 0);
    for (size_t w = 0; w < d.workerCount && w < tl.workers.size(); ++w) {
        labels.push_back(workerLabel(tl.workers[w].info));
        for (size_t c : d.culprits)
            if (c < d.ranks.size() && d.ranks[c].rank == tl.workers[w].info.rank)
                culprit[w] = 1;
    }
    QString whatIf;
    if (!d.culprits.empty() && d.culprits.front() < d.ranks.size() &&
        d.ranks[d.culprits.front()].hasWhatIf)
        whatIf = tr("rank %1").arg(d.ranks[d.culprits.front()].rank);
    const QString stepName = QString::fromStdString(d.stepName);
    m_graph->setSeries(r.series, stepName, whatIf);
    m_graph->setVisible(!d.steps.empty());
    m_heatMap->setDiagnosis(r.diagnosis, r.series, std::move(labels), std::move(culprit));
    QString text = d.steps.empty()
                       ? tr("no steps found")
                       : tr("step “%1”: %L2 steps, median %3, max %4")
                             .arg(stepName)
                             .arg(qulonglong(d.steps.size()))
                             .arg(formatDuration(d.stepP50Ns), formatDuration(d.stepMaxNs));
    QStringList culprits;
    for (size_t c : d.culprits) {
        if (c >= d.ranks.size() || culprits.size() == 3)
            break;
        const DiagnosisRank &k = d.ranks[c];
        QString s = tr("rank %1 (last %L2×, blame %3")
                        .arg(k.rank)
                        .arg(qlonglong(k.timesLast))
                        .arg(formatDuration(k.blameNs));
        if (k.hasWhatIf)
            s += tr(", fixing it saves %1 a step").arg(formatDuration(k.savedNsPerStep));
        culprits << s + QLatin1Char(')');
    }
    text += culprits.isEmpty() ? tr(" · no culprit")
                               : tr(" · culprit: ") + culprits.join(QStringLiteral("; "));
    m_summary->setText(text);
}

void StepPanel::setVisibleRange(int64_t startNs, int64_t endNs)
{
    m_graph->setVisibleRange(startNs, endNs);
}

QString StepPanel::summary() const
{
    return m_summary->text();
}

} // namespace syncline::ui
