// ColourScheme — stable colours per event name. For each name, in this order:
//  1. in category mode (setByCategory, View ▸ Colour by category) the colour of its kind's
//     category, even when the kind has its own colour (the mode is for grouping): each
//     category of the job takes the FNV-1a hash slot of its name or the next free one
//     (categories in byte order), so all names of a category share one colour and different
//     categories differ;
//  2. the explicit colour of its configured kind (config event_kinds[].color, via
//     Timeline::kinds) — an extra colour index past the palette;
//  3. a name matching a prefix given to setCategory gets that palette colour;
//  4. otherwise FNV-1a hash of the name into a fixed palette, with collisions moved to the next
//     free colour while free colours remain. Names claim slots in order of `weights` (the
//     scene passes each name's total time), most first, ties in byte order — so the names that
//     take the most time never share a colour even when a job has more names than colours.
//
// Invariants: colourIndex() is in [0, colourCount()); a name's colour depends only on its text,
// its kind, the set of names (and their weights) in the job and the mode — never on load order. Light and dark
// variants share hues (explicit colours are darkened like the palette in dark mode).
// Threading: read-only use from any thread after setup; setup on the GUI thread.
#pragma once

#include <QColor>
#include <QString>

#include "timeline/model/timeline.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace syncline::ui {

class ColourScheme
{
public:
    static int paletteSize();
    static int hashIndex(std::string_view name);

    // Assigns colour indices to every name in `names` (index = name id); kinds[id], when
    // present, is that name's configured kind (Timeline::kinds).
    void assign(const std::vector<std::string_view> &names, const std::vector<NameKind> &kinds = {},
                const std::vector<int64_t> &weights = {});
    // Live: names.size() > the names assigned so far; gives the new ones (ids from the current
    // size on) their colours without moving any assigned one (stable while a job grows; the
    // colours may then differ from a full load's when hashes collide).
    void extend(const std::vector<std::string_view> &names, const std::vector<NameKind> &kinds = {},
                const std::vector<int64_t> &weights = {});
    // Category mode (takes effect at the next assign()).
    void setByCategory(bool on) { m_byCategory = on; }
    bool byCategory() const { return m_byCategory; }
    int colourCount() const { return paletteSize() + int(m_custom.size()); }
    // The category a name was coloured by ("" when it was coloured as a name).
    const std::string &categoryOf(uint32_t nameId) const;
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
    int customIndex(uint32_t rgb);

    std::vector<int> m_index;
    std::vector<std::string> m_categoryOf;     // per name: the category it was coloured by
    std::vector<QRgb> m_custom;                // explicit colours: index paletteSize() + i
    std::map<std::string, int> m_categorySlot; // category mode: category → palette slot
    bool m_byCategory = false;
    std::vector<std::pair<QString, int>> m_categories;
};

} // namespace syncline::ui
