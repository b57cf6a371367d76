// Shortcuts — the viewer's keyboard and mouse reference, one table shared by Help ▸ Keyboard
// shortcuts and docs/viewer.md (keep them in step).
// Threading: pure function.
#pragma once

#include <QString>
#include <QStringList>
#include <utility>
#include <vector>

namespace syncline::ui {

// (keys, what they do), in display order.
std::vector<std::pair<QString, QString>> shortcutList();
QString shortcutsHtml();

} // namespace syncline::ui
