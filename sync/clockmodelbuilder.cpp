// ClockModelBuilder — see clockmodelbuilder.h.
#include "clockmodelbuilder.h"

#include "offsetfitter.h"
#include "shortrunfitter.h"
#include "stepdetector.h"
#include "windowselector.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace syncline::sync {

namespace {

constexpr double kUnknownDrift = 2e-4;    // allowance when a run cannot determine its drift
constexpr int64_t kInconsistentNs = 200;  // clock-read noise tolerance for lower > upper
constexpr double kSubKnotSpacingNs = 5e9; // knots farther apart get cubic sub-knots
// A segment's guaranteed bound is its largest over the segment, which every stamp in it reports.
// Between two bursts seconds apart that largest is in the middle (the rate's uncertainty times
// the distance to the nearer burst) while stamps near either burst are bounded by little more
// than its half-width: a straight segment longer than 2 × this is cut (on its line) into pieces
// of about this length, each with its own bound (a short run of two bursts: the start's and the
// end's, e.g. a 5 s run with one burst a minute).
constexpr double kBoundPieceNs = 1e9;

// Cubic Hermite between two knots with their fitted slopes (follows thermal curvature when
// bursts are sparse; a straight line would cut the corner).
double hermite(double ta, double tb, double tha, double thb, double ma, double mb, double t)
{
    const double d = tb - ta, s = (t - ta) / d, s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * tha + (s3 - 2 * s2 + s) * d * ma + (-2 * s3 + 3 * s2) * thb +
           (s3 - s2) * d * mb;
}

struct Frame
{
    int64_t t0 = 0, v0 = 0;
    double t(int64_t x) const { return double(x - t0); }
};

struct Knot
{
    OffsetKnot k;
    size_t burst = 0; // global burst index
    int run = 0;
};

struct Run
{
    size_t first = 0, end = 0; // burst indices [first, end)
    double rho = kUnknownDrift;
    int window = 0;
};

// Largest distance from the straight map piece (ta,θa)→(tb,θb) to the edge of the band that the
// bursts [from, to) guarantee, carried with slope a ± rho. Exact for the piecewise-linear cones.
double coneBound(std::span<const BurstBound> b, size_t from, size_t to, const Frame &f, double ta,
                 double tb, double tha, double thb, double a, double rho)
{
    std::vector<double> ts{ta, tb};
    for (size_t i = from; i < to; ++i) {
        for (size_t j = i + 1; j < to; ++j) {
            const double ti = f.t(b[i].tUpper), tj = f.t(b[j].tUpper);
            const double ui = double(b[i].upper - f.v0), uj = double(b[j].upper - f.v0);
            ts.push_back((uj - ui + (a + rho) * ti - (a - rho) * tj) / (2 * rho));
            const double li = double(b[i].lower - f.v0), lj = double(b[j].lower - f.v0);
            const double si = f.t(b[i].tLower), sj = f.t(b[j].tLower);
            ts.push_back((li - lj - (a - rho) * si + (a + rho) * sj) / (2 * rho));
        }
    }
    double worst = 0.0;
    for (double t : ts) {
        if (!(t >= std::min(ta, tb) && t <= std::max(ta, tb)))
            continue;
        const double th = (tb == ta) ? tha : tha + (thb - tha) * (t - ta) / (tb - ta);
        double hi = std::numeric_limits<double>::infinity(), lo = -hi;
        for (size_t j = from; j < to; ++j) {
            const double du = t - f.t(b[j].tUpper), dl = t - f.t(b[j].tLower);
            hi = std::min(hi, double(b[j].upper - f.v0) + a * du + rho * std::fabs(du));
            lo = std::max(lo, double(b[j].lower - f.v0) + a * dl - rho * std::fabs(dl));
        }
        worst = std::max({worst, hi - th, th - lo});
    }
    return worst;
}

double driftAllowance(const std::vector<double> &slopes, double floor)
{
    if (slopes.size() < 2)
        return floor;
    std::vector<double> d;
    for (size_t i = 1; i < slopes.size(); ++i)
        d.push_back(std::fabs(slopes[i] - slopes[i - 1]));
    const size_t q = std::min(d.size() - 1, size_t(std::ceil(0.95 * double(d.size()))) - 1);
    std::nth_element(d.begin(), d.begin() + long(q), d.end());
    return std::max(floor, 2.0 * d[q]);
}

// Steps 1-2: the step-free runs and their offset knots (one per burst; of two bursts at one
// instant only the first). Sets model.steps, model.window and model.driftAllowance.
struct RunFit
{
    std::vector<Run> runs;
    std::vector<Knot> knots;
};

// A run too short to choose a window from its own joints (see ShortRunFitter): fewer than 8
// bursts (no window length has 3 joints), or fewer than 16 (no window of 4 or more bursts has
// 3 joints) when one line passes every burst's bounds (the data show no curvature to follow).
// Sparse runs of 4 bursts and more are excluded: their minutes-long span determines the rate,
// and the parabola windows follow the curvature over it.
bool isShortRun(std::span<const BurstBound> sub, const Frame &f)
{
    if (sub.size() < 4)
        return true;
    if (sub.size() >= size_t(ShortRunFitter::kMaxLineBursts) || WindowSelector::isSparse(sub))
        return false;
    return sub.size() < size_t(ShortRunFitter::kMaxBursts) ||
           ShortRunFitter::feasibleSlopes(sub, f.t0, f.v0).feasible;
}

RunFit fitRuns(std::span<const BurstBound> bursts, std::span<const BurstBound> domain,
               std::vector<size_t> cuts, const Frame &f, const ClockModelOptions &opt,
               ClockModel &model)
{
    model.steps = int(cuts.size());
    cuts.insert(cuts.begin(), 0);
    cuts.push_back(bursts.size());

    RunFit out;
    double prior = 0.0;
    for (size_t r = 0; r + 1 < cuts.size(); ++r) {
        Run run{cuts[r], cuts[r + 1]};
        const auto sub = bursts.subspan(run.first, run.end - run.first);
        if (isShortRun(sub, f)) {
            const ShortRunFitter::Result sr =
                ShortRunFitter::fit(sub, domain, f.t0, f.v0, opt.minDriftAllowance);
            run.window = int(sub.size());
            run.rho = sr.rho;
            for (size_t k = 0; k < sr.knots.size(); ++k) {
                if (!out.knots.empty() && sr.knots[k].t <= out.knots.back().k.t)
                    continue;
                out.knots.push_back({sr.knots[k], run.first + k, int(r)});
            }
            prior = sr.slope;
            if (sub.size() * 2 >= bursts.size() || r == 0) {
                model.window = run.window;
                model.driftAllowance = run.rho;
            }
            model.shortRuns += 1;
            model.priorRuns += sr.choice == ShortRunFitter::Choice::Prior ? 1 : 0;
            model.constantRuns += sr.choice == ShortRunFitter::Choice::Constant ? 1 : 0;
            out.runs.push_back(run);
            continue;
        }
        WindowSelector::Choice choice;
        choice.window = int(sub.size());
        if (sub.size() >= 4)
            choice = WindowSelector(opt.maxWindow).select(sub);
        run.window = choice.window;
        const OffsetFitter::Result fit =
            OffsetFitter().fitRun(sub, run.window, f.t0, f.v0, prior, choice.quadratic);
        const bool driftKnown = sub.size() >= 2 && fit.knots.back().t - fit.knots.front().t > 1e6;
        run.rho =
            driftKnown ? driftAllowance(fit.windowSlopes, opt.minDriftAllowance) : kUnknownDrift;
        for (size_t k = 0; k < fit.knots.size(); ++k) {
            if (!out.knots.empty() && fit.knots[k].t <= out.knots.back().k.t)
                continue; // two bursts at one instant (several workers of a domain): keep one
            out.knots.push_back({fit.knots[k], run.first + k, int(r)});
        }
        prior = fit.knots.back().slope;
        if (sub.size() * 2 >= bursts.size() || r == 0) {
            model.window = run.window;
            model.driftAllowance = run.rho;
        }
        out.runs.push_back(run);
    }
    return out;
}

// Steps 3-5: the segments between, before and after the knots, each with its guaranteed bound
// (coneBound over the bursts next to it) and statistical band.
class SegmentBuilder
{
public:
    SegmentBuilder(std::span<const BurstBound> bursts, const Frame &f, const std::vector<Run> &runs,
                   const ClockModelOptions &opt, std::vector<ClockSegment> &out)
        : m_bursts(bursts), m_f(f), m_runs(runs), m_opt(opt), m_out(out)
    {
    }

    // From spanFirst to the first knot, extrapolated back along its slope.
    void leading(const Knot &k0, int64_t spanFirst)
    {
        const double ta = m_f.t(spanFirst), tb = m_f.t(k0.k.t);
        const double tha = k0.k.theta + k0.k.slope * (ta - tb);
        size_t from, to;
        nearBursts(k0, from, to);
        const double b =
            coneBound(m_bursts, from, to, m_f, ta, tb, tha, k0.k.theta, k0.k.slope, m_runs[0].rho);
        add(spanFirst, tha, b, k0.k.bandNs, SegExtrapolated);
    }

    void between(const Knot &ka, const Knot &kb)
    {
        uint32_t flags = (ka.k.fewSamples || kb.k.fewSamples) ? SegFewSamples : 0u;
        double bound = 0.0;
        if (ka.run == kb.run) {
            if (withinRun(ka, kb, flags, bound))
                return;
        } else {
            flags |= SegStepDetected;
            bound = acrossStep(ka, kb);
        }
        add(ka.k.t, ka.k.theta, bound, std::max(ka.k.bandNs, kb.k.bandNs), flags);
    }

    // From the last knot on, extrapolated along its slope (the last segment's slope).
    void trailing(const Knot &kl, int64_t spanLast)
    {
        const double ta = m_f.t(kl.k.t), tb = m_f.t(std::max(spanLast, kl.k.t));
        const double thb = kl.k.theta + kl.k.slope * (tb - ta);
        size_t from, to;
        nearBursts(kl, from, to);
        const double b = coneBound(m_bursts, from, to, m_f, ta, tb, kl.k.theta, thb, kl.k.slope,
                                   m_runs.back().rho);
        add(kl.k.t, kl.k.theta, b, kl.k.bandNs,
            SegExtrapolated | (kl.k.fewSamples ? SegFewSamples : 0u));
        m_out.back().slope = 1.0 + kl.k.slope;
    }

private:
    void add(int64_t t, double theta, double bound, double band, uint32_t flags)
    {
        ClockSegment s;
        s.localStart = t;
        s.globalStart = t + m_f.v0 + int64_t(std::llround(theta));
        s.boundNs = int64_t(std::ceil(bound)) + m_opt.boundMarginNs;
        s.bandNs = int64_t(std::ceil(band));
        s.flags = flags;
        m_out.push_back(s);
    }

    void nearBursts(const Knot &k, size_t &from, size_t &to) const
    {
        const Run &run = m_runs[size_t(k.run)];
        from = std::max(run.first, k.burst > 0 ? k.burst - 1 : 0);
        to = std::min(run.end, k.burst + 3);
    }

    // Two knots of one run: a Hermite curve cut into sub-segments when they are far apart
    // (true: those segments are added), else one segment whose bound goes to `bound`.
    bool withinRun(const Knot &ka, const Knot &kb, uint32_t flags, double &bound)
    {
        const double ta = m_f.t(ka.k.t), tb = m_f.t(kb.k.t);
        size_t from, to;
        nearBursts(ka, from, to);
        const double a = 0.5 * (ka.k.slope + kb.k.slope);
        const double rho = m_runs[size_t(ka.run)].rho;
        int sub = int(std::clamp(std::ceil((tb - ta) / kSubKnotSpacingNs), 1.0, 16.0));
        const bool straight = sub == 1;
        if (straight && tb - ta > 2 * kBoundPieceNs)
            sub = int(std::clamp(std::ceil((tb - ta) / kBoundPieceNs), 1.0, 16.0));
        // The j-th of `sub` points from ka to kb (exact: knots may lie up to 2^63 ns apart).
        auto point = [&](int j) {
            return int64_t(ka.k.t + (__int128(kb.k.t) - ka.k.t) * j / sub);
        };
        auto at = [&](int j) {
            const double tj = m_f.t(point(j));
            return j == 0     ? ka.k.theta
                   : j == sub ? kb.k.theta
                   : straight ? ka.k.theta + (kb.k.theta - ka.k.theta) * (tj - ta) / (tb - ta)
                              : hermite(ta, tb, ka.k.theta, kb.k.theta, ka.k.slope, kb.k.slope, tj);
        };
        for (int j = 0; j < sub; ++j) {
            const int64_t sa = point(j);
            const int64_t sb = point(j + 1);
            bound =
                coneBound(m_bursts, from, to, m_f, m_f.t(sa), m_f.t(sb), at(j), at(j + 1), a, rho);
            if (sub > 1)
                add(sa, at(j), bound, std::max(ka.k.bandNs, kb.k.bandNs), flags);
        }
        return sub > 1;
    }

    // The step gap between two runs: before the step θ follows the left run, after it the right
    // one; the bound covers both predictions at both ends.
    double acrossStep(const Knot &ka, const Knot &kb) const
    {
        const double ta = m_f.t(ka.k.t), tb = m_f.t(kb.k.t);
        double bound = 0.0;
        for (const Knot *side : {&ka, &kb}) {
            size_t from, to;
            nearBursts(*side, from, to);
            const double rho = m_runs[size_t(side->run)].rho;
            for (double t : {ta, tb}) {
                const double th = ka.k.theta + (kb.k.theta - ka.k.theta) * (t - ta) / (tb - ta);
                const double pred = side->k.theta + side->k.slope * (t - m_f.t(side->k.t));
                const double e =
                    coneBound(m_bursts, from, to, m_f, t, t, pred, pred, side->k.slope, rho);
                bound = std::max(bound, std::fabs(th - pred) + e);
            }
        }
        return bound;
    }

    std::span<const BurstBound> m_bursts;
    const Frame &m_f;
    const std::vector<Run> &m_runs;
    const ClockModelOptions &m_opt;
    std::vector<ClockSegment> &m_out;
};

} // namespace

ClockModel ClockModelBuilder::build(std::span<const BurstBound> input, int64_t spanFirst,
                                    int64_t spanLast, std::span<const BurstBound> domain) const
{
    ClockModel model;
    // A burst whose lower bound exceeds its upper bound saw θ jump while it ran (a step inside
    // the burst): it belongs to neither side, so it is left out and the step gap spans it.
    std::vector<BurstBound> kept;
    kept.reserve(input.size());
    for (const BurstBound &b : input) {
        if (b.lower <= b.upper + kInconsistentNs)
            kept.push_back(b);
    }
    // Steps; bursts of other processes of the domain that fall inside a step's interval belong
    // to neither side and are left out too.
    std::vector<size_t> ambiguous;
    std::vector<size_t> cuts = StepDetector().detect(kept, &ambiguous);
    if (!ambiguous.empty()) {
        for (size_t &c : cuts)
            c -=
                size_t(std::lower_bound(ambiguous.begin(), ambiguous.end(), c) - ambiguous.begin());
        for (size_t i = ambiguous.size(); i-- > 0;)
            kept.erase(kept.begin() + long(ambiguous[i]));
        std::vector<size_t> valid;
        for (size_t c : cuts) {
            if (c > 0 && c < kept.size() && (valid.empty() || c > valid.back()))
                valid.push_back(c);
        }
        cuts = std::move(valid);
    }
    const std::span<const BurstBound> bursts(kept);
    model.bursts = int(bursts.size());
    model.droppedBursts = int(input.size() - kept.size());
    if (bursts.empty())
        return model;
    const Frame f{bursts.front().tMid(), bursts.front().lower};

    const RunFit fit = fitRuns(bursts, domain, std::move(cuts), f, m_opt, model);
    const std::vector<Knot> &knots = fit.knots;
    SegmentBuilder segments(bursts, f, fit.runs, m_opt, model.segments);
    if (spanFirst < knots.front().k.t)
        segments.leading(knots.front(), spanFirst);
    for (size_t i = 0; i + 1 < knots.size(); ++i)
        segments.between(knots[i], knots[i + 1]);
    segments.trailing(knots.back(), spanLast);
    // Slopes from the rounded integer knots, so consecutive segments meet exactly.
    for (size_t i = 0; i + 1 < model.segments.size(); ++i) {
        ClockSegment &s = model.segments[i];
        const ClockSegment &n = model.segments[i + 1];
        const double dl = double(n.localStart - s.localStart);
        s.slope = dl > 0 ? double(n.globalStart - s.globalStart) / dl : 1.0;
    }
    return model;
}

} // namespace syncline::sync
