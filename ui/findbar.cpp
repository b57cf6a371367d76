#include "findbar.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QToolButton>

namespace syncline::ui {

FindBar::FindBar(QWidget *parent)
    : QWidget(parent), m_find(new QLineEdit(this)), m_regex(new QCheckBox(tr("Regex"), this)),
      m_status(new QLabel(this)), m_nameFilter(new QLineEdit(this)), m_minRank(new QSpinBox(this)),
      m_maxRank(new QSpinBox(this)), m_threadFilter(new QLineEdit(this)),
      m_hidden(new QToolButton(this))
{
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 3, 6, 3);
    m_find->setPlaceholderText(
        tr("Find (Ctrl+F): name, rank:3, dur>1ms, args.step=12, /regex/ — Enter next"));
    m_find->setToolTip(tr("Words match names; fields: name: cat: host: thread: rank: restart: "
                          "(rank:2-5, rank>3), dur>1ms, args.KEY=V (args.KEY>N, args.KEY:text), "
                          "/regex/, -term to exclude, \"quoted words\". Regex: the whole text "
                          "is a regular expression over names."));
    m_find->setClearButtonEnabled(true);
    m_find->installEventFilter(this);
    auto *prev = new QToolButton(this);
    prev->setText(QStringLiteral("▲"));
    prev->setToolTip(tr("Previous match (Shift+Enter)"));
    auto *next = new QToolButton(this);
    next->setText(QStringLiteral("▼"));
    next->setToolTip(tr("Next match (Enter)"));
    m_nameFilter->setPlaceholderText(tr("Show only names containing…"));
    m_nameFilter->setClearButtonEnabled(true);
    m_minRank->setPrefix(tr("ranks "));
    m_maxRank->setPrefix(tr("to "));
    layout->addWidget(m_find, 3);
    layout->addWidget(prev);
    layout->addWidget(next);
    layout->addWidget(m_regex);
    layout->addWidget(m_status, 1);
    layout->addWidget(m_nameFilter, 2);
    layout->addWidget(m_minRank);
    layout->addWidget(m_maxRank);
    m_threadFilter->setPlaceholderText(tr("threads…"));
    m_threadFilter->setToolTip(tr("Show only threads whose name contains this"));
    m_threadFilter->setClearButtonEnabled(true);
    layout->addWidget(m_threadFilter, 1);
    m_hidden->setPopupMode(QToolButton::InstantPopup);
    m_hidden->setToolTip(tr("Hidden workers and threads: click one to show it again"));
    m_hidden->hide();
    layout->addWidget(m_hidden);
    connect(m_threadFilter, &QLineEdit::textChanged, this, &FindBar::threadFilterChanged);
    setRankLimits(0, 0);
    connect(m_find, &QLineEdit::textChanged, this,
            [this] { emit searchChanged(pattern(), isRegex()); });
    connect(m_regex, &QCheckBox::toggled, this,
            [this] { emit searchChanged(pattern(), isRegex()); });
    connect(prev, &QToolButton::clicked, this, [this] { emit stepRequested(false); });
    connect(next, &QToolButton::clicked, this, [this] { emit stepRequested(true); });
    connect(m_nameFilter, &QLineEdit::textChanged, this, &FindBar::nameFilterChanged);
    auto ranks = [this] { emit rankRangeChanged(m_minRank->value(), m_maxRank->value()); };
    connect(m_minRank, &QSpinBox::valueChanged, this, ranks);
    connect(m_maxRank, &QSpinBox::valueChanged, this, ranks);
}

void FindBar::setHiddenCount(int n)
{
    m_hidden->setText(tr("Hidden (%1)").arg(n));
    m_hidden->setVisible(n > 0);
}

QString FindBar::pattern() const
{
    return m_find->text();
}

bool FindBar::isRegex() const
{
    return m_regex->isChecked();
}

void FindBar::setRegex(bool on)
{
    m_regex->setChecked(on);
}

void FindBar::setRankLimits(int minRank, int maxRank)
{
    const QSignalBlocker a(m_minRank);
    const QSignalBlocker b(m_maxRank);
    m_minRank->setRange(minRank, maxRank);
    m_maxRank->setRange(minRank, maxRank);
    m_minRank->setValue(minRank);
    m_maxRank->setValue(maxRank);
}

QString FindBar::statusText() const
{
    return m_status->text();
}

void FindBar::setStatus(const QString &text, bool error)
{
    m_status->setText(text);
    m_status->setStyleSheet(error ? QStringLiteral("color:#d93025") : QString());
}

void FindBar::focusFind()
{
    m_find->setFocus();
    m_find->selectAll();
}

bool FindBar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_find && event->type() == QEvent::KeyPress) {
        auto *key = static_cast<QKeyEvent *>(event);
        if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
            emit stepRequested(!(key->modifiers() & Qt::ShiftModifier));
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace syncline::ui
