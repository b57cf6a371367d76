// `syncline check PATH... [--align-on PATTERN]` — loads the job and prints every problem found
// (bad lines with file:line, misnesting, duplicates, dropped events, clock notes, syncline logs
// that end without the recorder's `close` record: cut by a crash, a kill, a deletion or a full
// disk while written, or still being written; workers synced to another time server's clock than
// the reference). Exit status:
// 0 when nothing is wrong, 1 when any warning or error was found, 2 for usage errors or when
// nothing could be loaded. Text from the files (names, hosts, paths) is printed through
// utf8::terminalSafe: control characters and invalid bytes as \xNN.
#include "command.h"
#include "jobargs.h"

#include "recorder/utf8.h"

#include <cstdio>

namespace syncline::app {

namespace {

int run(int argc, char **argv)
{
    JobArgs args;
    const int rc = args.parse("check", argc, argv, nullptr);
    if (rc >= 0)
        return rc;
    auto tl = args.load("check");
    if (!tl)
        return 2;
    int warnings = 0, errors = 0;
    for (const LoadProblem &p : tl->problems) {
        std::printf("%s: %s\n", LoadProblem::severityName(p.severity),
                    utf8::terminalSafe(p.toString()).c_str());
        warnings += p.severity == LoadProblem::Severity::Warning;
        errors += p.severity == LoadProblem::Severity::Error;
    }
    for (const Worker &w : tl->workers) {
        if (w.info.kind == SourceKind::SynclineLog && !w.info.closedCleanly) {
            std::printf("warning: %s: rank %d: no close record: the log is cut (the process "
                        "crashed or was killed, or the log was deleted or its disk filled while it "
                        "was written) or still being written\n",
                        utf8::terminalSafe(w.info.sourceFile).c_str(), w.info.rank);
            ++warnings;
        }
        if (w.info.droppedEvents > 0) {
            std::printf("warning: %s: rank %d dropped %lld event(s) (buffer overflow)\n",
                        utf8::terminalSafe(w.info.sourceFile).c_str(), w.info.rank,
                        (long long)w.info.droppedEvents);
            ++warnings;
        }
    }
    for (const std::string &note : tl->clockNotes)
        std::printf("clock: %s\n", utf8::terminalSafe(note).c_str());
    // Workers synced to another time server than the reference's share no clock with it: their
    // corrected times are an alignment at best (the clock note says which ranks and how).
    std::string otherRef;
    for (const Worker &w : tl->workers)
        if (w.clock.flags & sync::SegOtherReference)
            otherRef += (otherRef.empty() ? "" : ", ") + std::to_string(w.info.rank);
    if (!otherRef.empty()) {
        std::printf("warning: rank(s) %s synced to another reference clock (time server) than "
                    "the job's reference: not on one corrected clock with the other ranks\n",
                    otherRef.c_str());
        ++warnings;
    }
    const auto &c = tl->causality;
    if (c.violationsAfter > 0) {
        std::printf("warning: %lld causality violation(s) remain after correction\n",
                    (long long)c.violationsAfter);
        ++warnings;
    }
    std::printf("%zu worker(s), %zu event(s): %d error(s), %d warning(s)\n", tl->workers.size(),
                tl->eventCount(), errors, warnings);
    return errors + warnings > 0 ? 1 : 0;
}

} // namespace

SYNCLINE_REGISTER_COMMAND((Command{
    "check", "check PATH... [--align-on PATTERN] [--clock C] [--no-correct] [--no-align]",
    "Validates a job: prints every problem found while loading (malformed lines with file:line,\n"
    "ends without a begin, misnesting, records out of order, duplicate ranks, dropped events,\n"
    "logs without a close record (cut or still written), workers synced to different time\n"
    "servers, clock notes). Exit status 0 when nothing is wrong, 1 when anything is, 2 on usage\n"
    "errors or when nothing could be loaded.",
    run}));

} // namespace syncline::app
