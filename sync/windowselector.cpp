// WindowSelector — see windowselector.h.
#include "windowselector.h"

#include "hullfitter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace syncline::sync {

namespace {

constexpr int kMinJoints = 3;
constexpr int kMinQuadraticWindow = 4;

struct Disagreement
{
    double rms = 0.0;
    int joints = 0;
};

// RMS disagreement of adjacent, non-overlapping windows of w bursts where they meet.
Disagreement disagreement(std::span<const BurstBound> run, int w)
{
    const HullFitter fitter;
    const int n = int(run.size());
    double sum = 0.0, level = 0.0;
    int joints = 0, windows = 0;
    LineFit prev;
    const int64_t t0 = run.front().tMid(), v0 = run.front().lower;
    std::vector<double> resid;
    for (int s = 0; s + w <= n; s += w) {
        const auto win = run.subspan(size_t(s), size_t(w));
        const LineFit f = fitter.fit(win, t0, v0);
        // Lack of fit: the median of the burst midpoints around the window's line. Curvature
        // biases the envelope line of a long window to one side by the same amount in
        // neighbouring windows — their joints agree — but the midpoints (unbiased, only noisy)
        // see it.
        resid.clear();
        for (const BurstBound &b : win)
            resid.push_back(b.mid() - double(v0) - f.value(double(b.tMid() - t0)));
        std::nth_element(resid.begin(), resid.begin() + long(resid.size() / 2), resid.end());
        level += resid[resid.size() / 2] * resid[resid.size() / 2];
        ++windows;
        if (s > 0) {
            // Joint: halfway between the last burst of the previous window and this one's first.
            const double tj =
                0.5 * (double(run[size_t(s - 1)].tMid() - t0) + double(run[size_t(s)].tMid() - t0));
            const double d = f.value(tj) - prev.value(tj);
            sum += d * d;
            ++joints;
        }
        prev = f;
    }
    return {std::sqrt(sum / std::max(joints, 1) + level / std::max(windows, 1)), joints};
}

// Mean |prediction error| at each burst of a parabola fitted to the w bursts around it (the
// burst itself left out), against the burst's midpoint. The midpoint's own noise is the same for
// every w, so the w that predicts best has the smallest score.
double crossValidation(std::span<const BurstBound> run, int w)
{
    const HullFitter fitter;
    const int n = int(run.size());
    const int64_t t0 = run.front().tMid(), v0 = run.front().lower;
    std::vector<BurstBound> others;
    double sum = 0.0;
    for (int k = 0; k < n; ++k) {
        const int s = std::clamp(k - w / 2, 0, n - w - 1);
        others.clear();
        for (int j = s; j <= s + w; ++j)
            if (j != k)
                others.push_back(run[size_t(j)]);
        const LineFit f = fitter.fitQuadratic(others, t0, v0);
        sum += std::fabs(f.value(double(run[size_t(k)].tMid() - t0)) -
                         (run[size_t(k)].mid() - double(v0)));
    }
    return sum / n;
}

WindowSelector::Choice selectSparse(std::span<const BurstBound> run, int maxWindow)
{
    WindowSelector::Choice best;
    best.window = std::max(2, int(run.size()));
    best.disagreementNs = std::numeric_limits<double>::infinity();
    for (int w : {4, 5, 6, 7, 8, 9, 12, 16, 24, 32}) {
        if (w > maxWindow || w + 1 > int(run.size()))
            break;
        const double score = crossValidation(run, w);
        if (score <= best.disagreementNs) {
            best.window = w;
            best.quadratic = true;
            best.disagreementNs = score;
        }
    }
    return best;
}

} // namespace

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

bool WindowSelector::isSparse(std::span<const BurstBound> run)
{
    if (run.size() < 2)
        return false;
    std::vector<int64_t> gaps;
    for (size_t i = 1; i < run.size(); ++i)
        gaps.push_back(run[i].tMid() - run[i - 1].tMid());
    std::nth_element(gaps.begin(), gaps.begin() + long(gaps.size() / 2), gaps.end());
    return double(gaps[gaps.size() / 2]) >= kSparseSpacingNs;
}

WindowSelector::Choice WindowSelector::select(std::span<const BurstBound> run) const
{
    Choice best;
    best.disagreementNs = std::numeric_limits<double>::infinity();
    const int n = int(run.size());
    if (n > kMinQuadraticWindow && isSparse(run))
        return selectSparse(run, m_maxWindow);
    for (int w : candidates(m_maxWindow)) {
        if (2 * w > n)
            break; // need at least one joint
        const Disagreement d = disagreement(run, w);
        // One or two joints say little (a lucky pair of neighbours picked 64-burst windows in a
        // 3-minute run, where thermal curvature then cost 300 ns): a length needs kMinJoints
        // unless no length has that many.
        if (d.joints < kMinJoints && std::isfinite(best.disagreementNs))
            break;
        // An RMS from few joints is itself uncertain, and the minimum over the lengths picks the
        // luckiest: compare the 1-σ upper confidence of each RMS, rms / (1 − 1/√(2n)) for n
        // joints (χ² with n degrees of freedom) — ×1.7 for 3 joints, ×1.1 for 50. (Raw RMS
        // picked 128-burst windows from 3 joints in a 10-minute run with 1 ppm wander: p99
        // 3.9 µs where 16 bursts give 1.2 µs.)
        const double score = d.joints > 0
                                 ? d.rms / (1.0 - 1.0 / std::sqrt(2.0 * double(d.joints)) + 1e-9)
                                 : INFINITY;
        // Scores within 1 ns (the stamps' resolution) are a tie: the longer window wins.
        if (score <= best.disagreementNs + 1.0) {
            best.window = w;
            best.disagreementNs = std::min(score, best.disagreementNs);
        }
    }
    if (!std::isfinite(best.disagreementNs)) {
        best.window = std::max(2, n);
        best.disagreementNs = 0.0;
    }
    return best;
}

} // namespace syncline::sync
