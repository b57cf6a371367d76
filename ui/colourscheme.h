// ColourScheme — stable colours per event name: FNV-1a hash of the name into a fixed palette,
// with collisions moved to the next free colour (names taken in byte order) so a job's few
// names stay distinguishable; names matching a configured category prefix (setCategory) share
// that category's colour.
//
// Invariants: colourIndex() is in [0, paletteSize()); a name's colour depends only on its text,
// the set of names in the job and the categories — never on load order. Light and dark
// variants share hues.
// Threading: read-only use from any thread after setup; setup on the GUI thread.
#pragma once

#include <QColor>
#include <QString>

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace syncline::ui {

class ColourScheme
{
public:
    static int paletteSize();
    static int hashIndex(std::string_view name);

    // Assigns palette indices to every name in `names` (index = name id).
    void assign(const std::vector<std::string_view> &names);
    // Live: names.size() > the names assigned so far; gives the new ones (ids from the current
    // size on) their colours without moving any assigned one (stable while a job grows; the
    // colours may then differ from a full load's when hashes collide).
    void extend(const std::vector<std::string_view> &names);
    size_t assignedCount() const { return m_index.size(); }
    // Names starting with `prefix` get palette colour `index` (checked in insertion order).
    void setCategory(const QString &prefix, int index);
    int colourIndex(uint32_t nameId) const { return nameId < m_index.size() ? m_index[nameId] : 0; }
    QColor colour(int index, bool dark) const;
    QColor nameColour(uint32_t nameId, bool dark) const
    {
        return colour(colourIndex(nameId), dark);
    }

private:
    std::vector<int> m_index;
    std::vector<std::pair<QString, int>> m_categories;
};

} // namespace syncline::ui
