// FileReader — small file helpers for the loaders: read a whole file, read its first bytes.
// Errors come back as "path: reason" text. Threading: stateless, any thread.
#pragma once

#include <string>

namespace syncline {

class FileReader
{
public:
    static bool readAll(const std::string &path, std::string &out, std::string *error);
    static std::string head(const std::string &path, size_t bytes);
};

} // namespace syncline
