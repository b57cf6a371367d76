#include "daskhandover.h"

#include "jobargs.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace syncline::app {

namespace fs = std::filesystem;

namespace {

// The directory holding the syncline package for this executable: <bin>/../python in a build
// tree, else <bin>/../<the install's Python dir>; "" when neither holds syncline/dask.py.
std::string moduleDir()
{
    std::error_code ec;
    const fs::path bin = fs::read_symlink("/proc/self/exe", ec).parent_path();
    if (ec)
        return {};
    for (const fs::path &dir : {bin / ".." / "python", bin / ".." / SYNCLINE_PYTHON_INSTALL_DIR})
        if (fs::exists(dir / "syncline" / "dask.py", ec))
            return fs::weakly_canonical(dir, ec).string();
    return {};
}

int usage(const char *verb, const char *why)
{
    std::fprintf(stderr, "syncline %s: --dask %s\n", verb, why);
    return 2;
}

// `python3 -m syncline.dask VERB PATH... --scheduler ADDRESS [job options] [extra]`: its status.
int handOver(const char *verb, const JobArgs &args, const std::string &address,
             const std::vector<std::string> &extra)
{
    if (!args.correct || args.clock == ClockChoice::Wall)
        return usage(verb, "takes the corrected or raw clock only (not --no-correct, --clock wall)");
    const std::string dir = moduleDir();
    if (dir.empty()) {
        std::fprintf(stderr, "syncline %s: --dask: the Python module syncline is not beside "
                             "this executable (build or install it with the Python bindings)\n",
                     verb);
        return 1;
    }
    std::vector<std::string> argv = {SYNCLINE_PYTHON, "-m", "syncline.dask", verb};
    argv.insert(argv.end(), args.paths.begin(), args.paths.end());
    argv.insert(argv.end(), {"--scheduler", address});
    if (!args.ranks.all())
        argv.insert(argv.end(), {"--ranks", args.ranks.toString()});
    if (!args.alignOn.empty())
        argv.insert(argv.end(), {"--align-on", args.alignOn});
    if (!args.align)
        argv.push_back("--no-align");
    if (args.raw)
        argv.push_back("--raw");
    argv.insert(argv.end(), extra.begin(), extra.end());
    const char *old = std::getenv("PYTHONPATH");
    const std::string path = dir + (old && *old ? ":" + std::string(old) : "");
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        std::fprintf(stderr, "syncline %s: --dask: fork: %s\n", verb, std::strerror(errno));
        return 1;
    }
    if (pid == 0) {
        ::setenv("PYTHONPATH", path.c_str(), 1);
        std::vector<char *> cargv;
        for (std::string &a : argv)
            cargv.push_back(a.data());
        cargv.push_back(nullptr);
        ::execv(cargv[0], cargv.data());
        std::fprintf(stderr, "syncline %s: --dask: cannot run %s: %s\n", verb, cargv[0],
                     std::strerror(errno));
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

} // namespace

int runStatsOnDask(const JobArgs &args, bool json, const std::string &address)
{
    if (!json)
        return usage("stats", "prints the --json document only (add --json)");
    if (args.window.use)
        return usage("stats", "does not take --range (the cluster computes the whole job)");
    return handOver("stats", args, address, {});
}

int runExportOnDask(const JobArgs &args, const std::string &csv, bool otherOutputs,
                    const std::string &address)
{
    if (csv.empty() || otherOutputs)
        return usage("export", "writes the events CSV only (--csv FILE, with or without --range)");
    std::vector<std::string> extra = {"--csv", csv};
    if (args.window.use) // in ns from the job's earliest event, as --range reads them
        extra.insert(extra.end(), {"--range", std::to_string(args.window.beginNs) + ":" +
                                                  std::to_string(args.window.endNs)});
    return handOver("export", args, address, extra);
}

int runDiagnoseOnDask(const JobArgs &args, bool json, const LoadWindow &range,
                      const std::string &step, const std::string &address)
{
    std::vector<std::string> extra;
    if (json)
        extra.push_back("--json");
    if (!step.empty())
        extra.push_back("--step=" + step); // one word: a name may start with '-'
    if (range.use)
        extra.push_back("--range=" + std::to_string(range.beginNs) + ":" +
                        std::to_string(range.endNs));
    return handOver("diagnose", args, address, extra);
}

} // namespace syncline::app
