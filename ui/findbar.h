// FindBar — the search and filter row above the timeline: a find box (substring or regex,
// Enter = next match, Shift+Enter = previous), a name filter and a rank range.
// It only emits what the user asked for; MainWindow applies it to the scene.
// Threading: GUI thread only.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QCheckBox;
class QSpinBox;

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
    void focusFind();

signals:
    void searchChanged(const QString &pattern, bool regex);
    void stepRequested(bool forward);
    void nameFilterChanged(const QString &text);
    void rankRangeChanged(int minRank, int maxRank);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QLineEdit *m_find;
    QCheckBox *m_regex;
    QLabel *m_status;
    QLineEdit *m_nameFilter;
    QSpinBox *m_minRank;
    QSpinBox *m_maxRank;
};

} // namespace syncline::ui
