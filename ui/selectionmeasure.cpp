#include "selectionmeasure.h"

#include <algorithm>

namespace syncline::ui {

int64_t SelectionMeasure::eventsBetween(const TimelineScene &scene, int64_t t0, int64_t t1,
                                        const std::vector<int> &models)
{
    if (t1 < t0)
        std::swap(t0, t1);
    int64_t n = 0;
    auto count = [&](int m) {
        const TrackModel &tm = scene.model(m);
        const int64_t a = tm.map(scene.clockMode()).toLocal(t0);
        const int64_t b = tm.map(scene.clockMode()).toLocal(t1);
        for (int d = 0; d < tm.depthCount(); ++d) {
            const size_t lo = tm.rowSeekStart(d, 0, a);
            const size_t hi = tm.rowUpperBound(d, b);
            n += hi > lo ? int64_t(hi - lo) : 0;
        }
    };
    if (!models.empty()) {
        for (int m : models)
            count(m);
        return n;
    }
    const RowLayout &layout = scene.layout();
    for (int m = 0; m < int(scene.models().size()); ++m)
        if (layout.headerOf(int(scene.model(m).worker())) >= 0) // the worker is shown
            count(m);
    return n;
}

std::vector<int> SelectionMeasure::modelsIn(const TimelineScene &scene, double y0, double y1)
{
    if (y1 < y0)
        std::swap(y0, y1);
    std::vector<int> out;
    const RowLayout &layout = scene.layout();
    const auto [first, last] = layout.rowsIn(y0, y1);
    for (size_t i = first; i < last; ++i) {
        const LayoutRow &r = layout.rows()[i];
        if (r.kind == LayoutRow::EventRow && r.model >= 0) {
            out.push_back(r.model);
        } else if (r.kind == LayoutRow::GroupHeader && r.collapsed) {
            const auto [a, b] = scene.modelsOf(r.worker);
            for (int m = a; m < b; ++m)
                out.push_back(m);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::pair<double, double> SelectionMeasure::extentOf(const TimelineScene &scene,
                                                     const std::vector<int> &models)
{
    double top = 0, bottom = 0;
    bool any = false;
    const auto holds = [&](int m) { return std::binary_search(models.begin(), models.end(), m); };
    for (const LayoutRow &r : scene.layout().rows()) {
        bool in = false;
        if (r.kind == LayoutRow::EventRow && r.model >= 0) {
            in = holds(r.model);
        } else if (r.kind == LayoutRow::GroupHeader && r.collapsed) {
            const auto [a, b] = scene.modelsOf(r.worker);
            const auto it = std::lower_bound(models.begin(), models.end(), a);
            in = it != models.end() && *it < b;
        }
        if (!in)
            continue;
        top = any ? std::min(top, r.y) : r.y;
        bottom = any ? std::max(bottom, r.y + r.height) : r.y + r.height;
        any = true;
    }
    return {top, bottom};
}

} // namespace syncline::ui
