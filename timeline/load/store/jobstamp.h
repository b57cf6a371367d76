// JobStamp — what a job-level cache file outside the loader (the query database of `syncline
// query`) is keyed to, and where it lives: the same identity the loader's own caches check
// (LogIndex, CorrectionCache: each input's absolute path, size, mtime, inode and a hash of its
// first 4 KiB; --align-on and --no-correct) over every input the paths resolve to (logs, Chrome
// traces, the timer config), plus the caller's variant (its format and options). Any change to
// any input, a new or removed log, other options or another format gives another key.
//
// Place: `<dir of the first input>/.syncline-index/<stem><hash of the inputs and variant><ext>`,
// else the same name in the user's cache (CacheFile::placeFor); a place that is a symbolic link,
// not a directory or another user's is never used (CacheFile::refusal). The name does not depend
// on the inputs' contents, so a rebuilt file replaces the stale one.
// The stamp is taken before the job is loaded: a file that changes during the load then no longer
// matches the stored key, and the next use rebuilds.
// Threading: values; any thread.
#pragma once

#include <string>
#include <vector>

namespace syncline {

struct JobStamp
{
    std::string key;                // "" when an input cannot be stamped (see why)
    std::string why;
    std::vector<std::string> files; // the cache file's candidate paths, beside the logs first

    static JobStamp of(const std::vector<std::string> &paths, const std::string &alignOn,
                       bool correct, const std::string &variant, const char *stem,
                       const char *ext);
    // Makes `file`'s directory and checks it (created here or planted before, it must pass
    // CacheFile::refusal); false with *why when it cannot hold a cache file.
    static bool preparePlace(const std::string &file, std::string *why);
};

} // namespace syncline
