// ClockMode — which of a worker's two clock maps turns its local time into global time:
// Corrected (the sync engine's map) or Raw (the header's wall-clock anchor, what viewers without
// skew correction show). Data never holds a current mode: whoever shows or reports times passes
// the mode it wants (the viewer keeps one, in its TimelineScene; the CLI takes it from --raw).
#pragma once

namespace syncline {

enum class ClockMode
{
    Corrected,
    Raw
};

} // namespace syncline
