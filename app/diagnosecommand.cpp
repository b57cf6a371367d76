// `syncline diagnose PATH... [--json] [--range START:END] [--step NAME] [--align-on PATTERN]
// [--raw] [--dask ADDRESS]` — which rank holds the job back: steps, collective waits and
// blame, the critical path and what fixing a culprit would buy (timeline/report/diagnosis.h;
// the JSON contract is docs/cli.md#diagnose). The job is loaded whole: a windowed load would number collective
// instances from the window's edge, differently on each rank; --range selects the steps and
// instances that begin inside it. With --dask the same output is computed on a dask.distributed
// cluster (daskhandover.h).
#include "command.h"
#include "daskhandover.h"
#include "jobargs.h"

#include "timeline/report/diagnosis.h"
#include "timeline/report/diagnosisexporter.h"

#include <cstdio>
#include <iostream>
#include <optional>

namespace syncline::app {

namespace {

int run(int argc, char **argv)
{
    JobArgs args;
    bool json = false;
    LoadWindow range;
    DiagnoseQuery q;
    std::optional<std::string> dask;
    const int rc = args.parse("diagnose", argc, argv, [&](int &i) {
        const std::string a = argv[i];
        if (a == "--json") {
            json = true;
            return 1;
        }
        if (a == "--range" || a == "--step" || a == "--dask") {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "syncline diagnose: %s: expected a value\n", a.c_str());
                return -1;
            }
            const std::string value = argv[++i];
            if (a == "--dask") {
                dask = value;
            } else if (a == "--step") {
                if (value.empty()) {
                    std::fprintf(stderr, "syncline diagnose: --step: expected a name\n");
                    return -1;
                }
                q.stepName = value;
            } else if (!LoadWindow::parse(value, range)) {
                std::fprintf(stderr,
                             "syncline diagnose: --range: expected START:END (e.g. 10s:20s), "
                             "got '%s'\n",
                             value.c_str());
                return -1;
            }
            return 1;
        }
        return 0;
    });
    if (rc >= 0)
        return rc;
    if (dask)
        return runDiagnoseOnDask(args, json, range, q.stepName, *dask);
    auto tl = args.load("diagnose");
    if (!tl)
        return 1;
    q.mode = args.mode();
    q.cells = false; // the heat map's cells: the viewer's
    if (range.use) {
        q.useRange = true;
        q.beginNs = tl->originNs(q.mode) + range.beginNs;
        q.endNs = tl->originNs(q.mode) + range.endNs;
    }
    const Diagnosis d = Diagnoser::run(*tl, q);
    if (json)
        DiagnosisExporter::writeJson(*tl, d, std::cout);
    else
        DiagnosisExporter::writeText(*tl, d, std::cout);
    std::cout.flush();
    printProblemSummary(*tl, "diagnose");
    return 0;
}

} // namespace

SYNCLINE_REGISTER_COMMAND((Command{
    "diagnose",
    "diagnose PATH... [--json] [--range START:END] [--step NAME] [--align-on PATTERN] [--clock C] [--raw] "
    "[--no-correct] [--no-align] [--quiet] [--dask ADDRESS]",
    "Loads the job and says which rank holds it back (docs/straggler.md): the steps (first\n"
    "rank's start to last rank's end), each collective's last arriver and everyone's wait,\n"
    "blame per rank, the critical path per step and, per culprit, the step time if its work\n"
    "were the median of the others'. Arrivals closer than the ranks' clock bounds are undecided.\n"
    "  --json              print the JSON document of docs/cli.md#diagnose\n"
    "  --range START:END   only steps and collectives that begin in this window (times from the\n"
    "                      earliest event, unit ns, us, ms or s); the job is loaded whole\n"
    "  --step NAME         the step event (default: detected; ProfilerStep matches\n"
    "                      ProfilerStep#N)\n"
    "  --align-on PATTERN  align clocks on the k-th instance of events matching PATTERN\n"
    "  --ranks RANKS       only these workers' logs (0-63,512; docs/cli.md)\n"
    "  --raw               on the raw (uncorrected) clocks: no clock bounds, nothing undecided\n"
    "  --no-correct        skip the skew correction (corrected = raw)\n"
    "  --no-align          no alignment on collectives (sync samples and messages only)\n"
    "  --quiet, -q         no load progress on stderr\n"
    "  --dask ADDRESS      the same output computed on the dask.distributed scheduler at\n"
    "                      ADDRESS (tcp://HOST:8786; docs/scale.md) by the Python module\n"
    "                      syncline.dask (needs python3-distributed; the logs readable by the\n"
    "                      cluster's workers at the same paths)",
    run}));

} // namespace syncline::app
