#include "timeline/load/store/jobstamp.h"

#include "timeline/load/store/cachefile.h"
#include "timeline/load/store/correctioncache.h"
#include "timeline/load/parse/jobinputs.h"
#include "timeline/load/store/logindex.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace syncline {

namespace fs = std::filesystem;
using load::CacheFile;

JobStamp JobStamp::of(const std::vector<std::string> &paths, const std::string &alignOn,
                      bool correct, const std::string &variant, const char *stem, const char *ext)
{
    JobStamp s;
    const load::JobInputs inputs = load::JobInputs::resolve(paths);
    if (!inputs.fatalError.empty()) {
        s.why = inputs.fatalError;
        return s;
    }
    std::vector<std::string> all = inputs.logs;
    all.insert(all.end(), inputs.chromeTraces.begin(), inputs.chromeTraces.end());
    if (!inputs.configPath.empty())
        all.push_back(inputs.configPath);
    for (std::string &p : all)
        p = fs::absolute(p).lexically_normal().string();
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    if (all.empty()) {
        s.why = "no input files";
        return s;
    }
    // The name: the inputs and the variant, not their contents.
    std::string identity = variant + "\nalign-on=" + alignOn + "\ncorrect=" + (correct ? "1" : "0");
    for (const std::string &p : all)
        identity += "\n" + p;
    std::string key = "job-stamp/1 correction/" + std::to_string(load::CorrectionCache::kVersion) +
                      "\n" + identity + "\n";
    for (const std::string &p : all) {
        const auto st = load::LogFileStamp::of(p);
        if (!st) {
            s.why = p + ": cannot stat";
            return s;
        }
        char buf[128];
        std::snprintf(buf, sizeof buf, " %lld %lld %llu %016llx\n", (long long)st->size,
                      (long long)st->mtimeNs, (unsigned long long)st->inode,
                      (unsigned long long)st->headHash);
        key += p + buf;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)CacheFile::hash(identity));
    const std::string dir = fs::path(all.front()).parent_path().string();
    for (bool beside : {true, false})
        if (std::string f = CacheFile::fileIn(dir, beside, std::string(stem) + hex + ext);
            !f.empty())
            s.files.push_back(std::move(f));
    if (s.files.empty())
        s.why = "no usable cache place for " + dir;
    s.key = std::move(key);
    return s;
}

bool JobStamp::preparePlace(const std::string &file, std::string *why)
{
    const fs::path dir = fs::path(file).parent_path();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        *why = dir.string() + ": " + ec.message();
        return false;
    }
    // Checked after it exists: it may have been there (planted) before create_directories.
    if (const std::string r = CacheFile::refusal(dir.string()); !r.empty()) {
        *why = dir.string() + ": " + r;
        return false;
    }
    return true;
}

} // namespace syncline
