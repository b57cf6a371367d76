#include "openwindowdialog.h"

#include "timeformat.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

namespace syncline::ui {

OpenWindowDialog::OpenWindowDialog(QWidget *parent)
    : QDialog(parent), m_path(new QLineEdit(this)), m_span(new QLabel(this)),
      m_begin(new QDoubleSpinBox(this)), m_end(new QDoubleSpinBox(this)),
      m_buttons(new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this))
{
    setWindowTitle(tr("Open window"));
    setObjectName(QStringLiteral("openWindowDialog"));
    m_path->setObjectName(QStringLiteral("jobPath"));
    m_path->setPlaceholderText(tr("job directory, timer_config.json or a log"));
    m_begin->setObjectName(QStringLiteral("windowBegin"));
    m_end->setObjectName(QStringLiteral("windowEnd"));
    m_span->setObjectName(QStringLiteral("jobSpan"));
    m_span->setWordWrap(true);
    for (QDoubleSpinBox *b : {m_begin, m_end}) {
        b->setDecimals(6);
        b->setRange(0, 1e7);
        b->setSuffix(tr(" s"));
    }
    m_end->setValue(10);
    auto *browse = new QPushButton(tr("Browse…"), this);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Job directory"));
        if (!dir.isEmpty())
            setPath(dir);
    });
    auto *row = new QHBoxLayout;
    row->addWidget(m_path, 1);
    row->addWidget(browse);
    auto *form = new QFormLayout(this);
    form->addRow(tr("Job:"), row);
    form->addRow(QString(), m_span);
    form->addRow(tr("From (A):"), m_begin);
    form->addRow(tr("To (B):"), m_end);
    form->addRow(m_buttons);
    connect(m_path, &QLineEdit::editingFinished, this, &OpenWindowDialog::updateSpan);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto valid = [this] {
        m_buttons->button(QDialogButtonBox::Ok)
            ->setEnabled(!m_path->text().isEmpty() && m_begin->value() <= m_end->value());
    };
    connect(m_path, &QLineEdit::textChanged, this, valid);
    connect(m_begin, &QDoubleSpinBox::valueChanged, this, valid);
    connect(m_end, &QDoubleSpinBox::valueChanged, this, valid);
    valid();
    updateSpan();
}

void OpenWindowDialog::setPath(const QString &path)
{
    m_path->setText(path);
    updateSpan();
}

QString OpenWindowDialog::path() const
{
    return m_path->text();
}

LoadWindow OpenWindowDialog::window(ClockMode mode) const
{
    LoadWindow w;
    w.use = true;
    w.mode = mode;
    w.beginNs = int64_t(m_begin->value() * 1e9 + 0.5);
    w.endNs = int64_t(m_end->value() * 1e9 + 0.5);
    return w;
}

void OpenWindowDialog::updateSpan()
{
    if (m_path->text().isEmpty()) {
        m_span->setText(tr("Times are seconds from the job's earliest event."));
        return;
    }
    const IndexedSpan s = JobLoader::indexedSpan({m_path->text().toStdString()});
    if (!s.known) {
        m_span->setText(tr("No index yet (%1): the job is loaded whole once and cut; that load "
                           "writes the index, and later windows read only what they need.")
                            .arg(QString::fromStdString(s.why)));
        return;
    }
    const double seconds = double(s.range[0].duration()) / 1e9;
    m_span->setText(tr("Job: %1 (0 s – %2 s), %L3 events; indexed: only the window is read.")
                        .arg(formatDuration(s.range[0].duration()))
                        .arg(seconds, 0, 'f', 3)
                        .arg(qlonglong(s.events)));
    m_begin->setMaximum(seconds);
    m_end->setMaximum(seconds);
}

} // namespace syncline::ui
