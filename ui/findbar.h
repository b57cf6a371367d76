// FindBar — the search and filter row above the timeline: a find box (substring or regex,
// Enter = next match, Shift+Enter = previous), a name filter, a rank range, a thread-name filter
// and the list of hidden workers and threads.
// It only emits what the user asked for; MainWindow applies it to the scene.
// Threading: GUI thread only.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QCheckBox;
class QSpinBox;
class QToolButton;

namespace syncline::ui {

class FindBar : public QWidget
{
    Q_OBJECT
public:
    explicit FindBar(QWidget *parent = nullptr);
    QString pattern() const;
    bool isRegex() const;
    void setRegex(bool on);
    void setRankLimits(int minRank, int maxRank);
    void setStatus(const QString &text, bool error);
    QString statusText() const; // the counter ("12 events · 1 name")
    QLineEdit *findEdit() const { return m_find; }
    QLineEdit *nameFilterEdit() const { return m_nameFilter; }
    QLineEdit *threadFilterEdit() const { return m_threadFilter; }
    QSpinBox *minRankBox() const { return m_minRank; }
    QSpinBox *maxRankBox() const { return m_maxRank; }
    // "Hidden (N)": a menu of the hidden workers and threads (MainWindow fills it on show);
    // visible only while something is hidden.
    QToolButton *hiddenButton() const { return m_hidden; }
    void setHiddenCount(int n);
    void focusFind();

signals:
    void searchChanged(const QString &pattern, bool regex);
    void stepRequested(bool forward);
    void nameFilterChanged(const QString &text);
    void rankRangeChanged(int minRank, int maxRank);
    void threadFilterChanged(const QString &text);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QLineEdit *m_find;
    QCheckBox *m_regex;
    QLabel *m_status;
    QLineEdit *m_nameFilter;
    QSpinBox *m_minRank;
    QSpinBox *m_maxRank;
    QLineEdit *m_threadFilter;
    QToolButton *m_hidden;
};

} // namespace syncline::ui
