#include "statsdask.h"

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

int usage(const char *why)
{
    std::fprintf(stderr, "syncline stats: --dask %s\n", why);
    return 2;
}

} // namespace

int runStatsOnDask(const JobArgs &args, bool json, const std::string &address)
{
    if (!json)
        return usage("prints the --json document only (add --json)");
    if (args.window.use)
        return usage("does not take --range (the cluster computes the whole job)");
    if (!args.correct || args.clock == ClockChoice::Wall)
        return usage("takes the corrected or raw clock only (not --no-correct, --clock wall)");
    const std::string dir = moduleDir();
    if (dir.empty()) {
        std::fprintf(stderr, "syncline stats: --dask: the Python module syncline is not beside "
                             "this executable (build or install it with the Python bindings)\n");
        return 1;
    }
    std::vector<std::string> argv = {SYNCLINE_PYTHON, "-m", "syncline.dask", "stats"};
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
    const char *old = std::getenv("PYTHONPATH");
    const std::string path = dir + (old && *old ? ":" + std::string(old) : "");
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        std::fprintf(stderr, "syncline stats: --dask: fork: %s\n", std::strerror(errno));
        return 1;
    }
    if (pid == 0) {
        ::setenv("PYTHONPATH", path.c_str(), 1);
        std::vector<char *> cargv;
        for (std::string &a : argv)
            cargv.push_back(a.data());
        cargv.push_back(nullptr);
        ::execv(cargv[0], cargv.data());
        std::fprintf(stderr, "syncline stats: --dask: cannot run %s: %s\n", cargv[0],
                     std::strerror(errno));
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

} // namespace syncline::app
