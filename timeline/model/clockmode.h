// ClockMode — which of a worker's two clock maps turns its local time into global time:
// Corrected (the sync engine's map) or Raw (the header's wall-clock anchor, what viewers without
// skew correction show). Data never holds a current mode: whoever shows or reports times passes
// the mode it wants (the viewer keeps one, in its TimelineScene; the CLI takes it from --raw).
//
// ClockChoice — which clock a job is shown on (`--clock corrected|wall|raw`, the config's
// `view_clock`, Python's `clock=`): Corrected and Raw are the two modes above; Wall is a way of
// correcting (ClockCorrector, WallClocks: each host whose wall clock agrees with its corrected
// clock within its sync band is placed by its wall clock) shown in the Corrected mode.
#pragma once

#include <optional>
#include <string_view>

namespace syncline {

enum class ClockMode
{
    Corrected,
    Raw
};

enum class ClockChoice
{
    Corrected,
    Wall,
    Raw
};

inline const char *clockChoiceName(ClockChoice c)
{
    return c == ClockChoice::Wall ? "wall" : c == ClockChoice::Raw ? "raw" : "corrected";
}

// "corrected", "wall", "raw" (exactly); nullopt otherwise.
inline std::optional<ClockChoice> clockChoiceFromName(std::string_view name)
{
    if (name == "corrected")
        return ClockChoice::Corrected;
    if (name == "wall")
        return ClockChoice::Wall;
    if (name == "raw")
        return ClockChoice::Raw;
    return std::nullopt;
}

// The mode a choice is shown in: Raw for raw, else Corrected.
inline ClockMode modeOf(ClockChoice c)
{
    return c == ClockChoice::Raw ? ClockMode::Raw : ClockMode::Corrected;
}

} // namespace syncline
