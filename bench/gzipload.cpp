// gzipload — see gzipload.h.
#include "bench/gzipload.h"

#include "timeline/load/parse/chrome/chrometraceparser.h"
#include "timeline/load/parse/chrome/gzipinput.h"
#include "timeline/load/jobloader.h"

#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace syncline::bench {

namespace {

double seconds(Clock::time_point a) { return std::chrono::duration<double>(Clock::now() - a).count(); }

double cpuSelf()
{
    timespec t{};
    ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

double cpuChildren()
{
    rusage u{};
    ::getrusage(RUSAGE_CHILDREN, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
           double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

// Best wall time of `reps` loads of `path` (*cpu: the best CPU time, all threads); *events from
// the last.
double bestLoad(const std::string &path, int reps, long long *events, double *cpu)
{
    double best = 1e9;
    *cpu = 1e9;
    for (int r = 0; r < reps; ++r) {
        LoadOptions o;
        o.paths = {path};
        o.writeIndex = false;
        const auto t0 = Clock::now();
        const double c0 = cpuSelf();
        const LoadResult res = JobLoader::load(o);
        best = std::min(best, seconds(t0));
        *cpu = std::min(*cpu, cpuSelf() - c0);
        if (!res.timeline)
            return -1;
        long long n = 0;
        for (const Worker &w : res.timeline->workers)
            for (const EventTrack &t : w.tracks)
                n += (long long)t.count();
        *events = n;
    }
    return best;
}

} // namespace

bool runGzipRow(const std::string &gzPath, int reps)
{
    char tmpl[] = "/tmp/bench_gzip_XXXXXX";
    const std::string dir = ::mkdtemp(tmpl);
    const std::string plain = dir + "/trace.json";
    // The inflated copy, written with zlib (the same bytes zcat gives).
    {
        gzFile f = gzopen(gzPath.c_str(), "rb");
        if (!f)
            return false;
        std::ofstream out(plain, std::ios::binary);
        char buf[1 << 16];
        for (int n; (n = gzread(f, buf, sizeof buf)) > 0;)
            out.write(buf, n);
        gzclose(f);
    }
    const double mb = double(fs::file_size(plain)) / 1e6;
    const double gzMb = double(fs::file_size(gzPath)) / 1e6;
    long long eventsGz = 0, eventsPlain = 0;
    double cGz = 0, cPlain = 0;
    const double tGz = bestLoad(gzPath, reps, &eventsGz, &cGz);
    const double tPlain = bestLoad(plain, reps, &eventsPlain, &cPlain);
    double tInflate = 1e9, cInflate = 1e9;
    for (int r = 0; r < reps; ++r) {
        load::BigBuffer text;
        const auto t0 = Clock::now();
        const double c0 = cpuSelf();
        if (!load::GzipInput::inflate(gzPath, text).ok)
            return false;
        tInflate = std::min(tInflate, seconds(t0));
        cInflate = std::min(cInflate, cpuSelf() - c0);
    }
    // The parse alone (the file to ParsedFile, on this thread): what the loader adds after it
    // (merging, the correction, the timeline) is the rest.
    auto bestParse = [&](const std::string &path, double *cpu) {
        double best = 1e9;
        *cpu = 1e9;
        for (int r = 0; r < reps; ++r) {
            const auto t0 = Clock::now();
            const double c0 = cpuSelf();
            const load::ParsedFile f = load::ChromeTraceParser::parseFile(path);
            best = std::min(best, seconds(t0));
            *cpu = std::min(*cpu, cpuSelf() - c0);
            if (!f.usable)
                return -1.0;
        }
        return best;
    };
    double cParseGz = 0, cParsePlain = 0;
    const double tParseGz = bestParse(gzPath, &cParseGz);
    const double tParsePlain = bestParse(plain, &cParsePlain);
    double tZcat = 1e9, cZcat = 1e9;
    const std::string cmd = "zcat '" + gzPath + "' | wc -c > /dev/null";
    for (int r = 0; r < reps; ++r) {
        const auto t0 = Clock::now();
        const double c0 = cpuChildren();
        if (std::system(cmd.c_str()) != 0)
            return false;
        tZcat = std::min(tZcat, seconds(t0));
        cZcat = std::min(cZcat, cpuChildren() - c0);
    }
    std::printf("\ngzip: %s, %.1f MB gzip'd, %.1f MB inflated, best of %d (rates in inflated MB/s)\n",
                gzPath.c_str(), gzMb, mb, reps);
    std::printf("  %-44s %9s %9s %9s %9s\n", "", "wall s", "MB/s", "CPU s", "MB/CPU s");
    auto line = [&](const char *what, double t, double c) {
        std::printf("  %-44s %9.3f %9.0f %9.3f %9.0f\n", what, t, mb / t, c, mb / c);
    };
    line("syncline loader, .json.gz", tGz, cGz);
    line("syncline loader, same trace as .json", tPlain, cPlain);
    line("its parse alone, .json.gz (parseFile)", tParseGz, cParseGz);
    line("its parse alone, .json (parseFile)", tParsePlain, cParsePlain);
    line("its inflate alone (GzipInput, zlib)", tInflate, cInflate);
    line("zcat FILE | wc -c (sh, zcat, wc)", tZcat, cZcat);
    std::printf("  .json.gz / .json loader      = %.2f wall, %.2f CPU   (events %lld / %lld)\n",
                tPlain / tGz, cPlain / cGz, eventsGz, eventsPlain);
    std::printf("  .json.gz loader / zcat       = %.2f wall, %.2f CPU   (goal >= 0.80)\n",
                tZcat / tGz, cZcat / cGz);
    std::printf("  inflate alone / zcat         = %.2f wall, %.2f CPU\n", tZcat / tInflate,
                cZcat / cInflate);
    fs::remove_all(dir);
    return tGz > 0 && tPlain > 0;
}

} // namespace syncline::bench
