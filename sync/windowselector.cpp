// WindowSelector — see windowselector.h.
#include "windowselector.h"

#include "hullfitter.h"

#include <cmath>
#include <limits>

namespace syncline::sync {

std::vector<int> WindowSelector::candidates(int maxWindow)
{
    std::vector<int> out;
    for (int w = 2; w <= maxWindow; w *= 2) {
        out.push_back(w);
        const int mid = w + w / 2;
        if (mid <= maxWindow && mid > w)
            out.push_back(mid);
    }
    return out;
}

WindowSelector::Choice WindowSelector::select(std::span<const BurstBound> run) const
{
    Choice best;
    best.disagreementNs = std::numeric_limits<double>::infinity();
    const HullFitter fitter;
    const int n = int(run.size());
    for (int w : candidates(m_maxWindow)) {
        if (2 * w > n)
            break; // need at least one joint
        double sum = 0.0;
        int joints = 0;
        LineFit prev;
        int64_t t0 = 0, v0 = 0;
        for (int s = 0; s + w <= n; s += w) {
            const auto win = run.subspan(size_t(s), size_t(w));
            if (s == 0) {
                t0 = win.front().tMid();
                v0 = win.front().lower;
            }
            const LineFit f = fitter.fit(win, t0, v0);
            if (s > 0) {
                // Joint: halfway between the last burst of the previous window and this one's
                // first.
                const double tj = 0.5 * (double(run[size_t(s - 1)].tMid() - t0) +
                                         double(run[size_t(s)].tMid() - t0));
                const double d = f.value(tj) - prev.value(tj);
                sum += d * d;
                ++joints;
            }
            prev = f;
        }
        const double rms = std::sqrt(sum / std::max(joints, 1));
        if (rms <= best.disagreementNs) {
            best.window = w;
            best.disagreementNs = rms;
        }
    }
    if (!std::isfinite(best.disagreementNs)) {
        best.window = std::max(2, n);
        best.disagreementNs = 0.0;
    }
    return best;
}

} // namespace syncline::sync
