// ColourScheme — stable colours per event name: the same name gets the same colour in every run
// and every view (FNV-1a hash of the name into a fixed palette), unless a category colour was
// configured for it (setCategory: names matching a prefix share one colour).
//
// Invariants: colourIndex() is in [0, paletteSize()); a name's colour depends only on its text
// and the configured categories, never on load order. Light and dark variants share hues.
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
    // Names starting with `prefix` get palette colour `index` (checked in insertion order).
    void setCategory(const QString &prefix, int index);
    int colourIndex(uint32_t nameId) const
    {
        return nameId < m_index.size() ? m_index[nameId] : 0;
    }
    QColor colour(int index, bool dark) const;
    QColor nameColour(uint32_t nameId, bool dark) const { return colour(colourIndex(nameId), dark); }

private:
    std::vector<int> m_index;
    std::vector<std::pair<QString, int>> m_categories;
};

} // namespace syncline::ui
