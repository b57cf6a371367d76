// testdata — where the real third-party traces the tests read live: tests/data/ inside the
// repository (origin, commit and licence of each file in tests/data/README.md). Nothing a test
// reads lies outside the tree, so a clone with nothing beside it passes its tests.
#pragma once

#include <string>

namespace testdata {

inline std::string dir()
{
    return std::string(SYNCLINE_SOURCE_DIR) + "/tests/data";
}

} // namespace testdata
