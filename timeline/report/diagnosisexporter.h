// DiagnosisExporter — a Diagnosis as the JSON document of `syncline diagnose --json` and
// `Timeline.diagnose()` (the contract is docs/cli.md#diagnose), and as the text people read.
// Ranks are the job's ranks; ns are integers; shares are fractions of the critical path's time.
// Threading: pure; one stream per call.
#pragma once

#include "timeline/report/diagnosis.h"

#include <ostream>

namespace syncline {

class DiagnosisExporter
{
public:
    static constexpr int kFormatVersion = 1;
    static void writeJson(const Timeline &timeline, const Diagnosis &d, std::ostream &out);
    static void writeText(const Timeline &timeline, const Diagnosis &d, std::ostream &out);
};

} // namespace syncline
