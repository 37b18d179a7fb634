// A fresh directory under the temporary directory, removed with everything
// in it when the TempDir goes out of scope, whether the test passed or
// failed: a suite run many times must not fill /tmp.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace herald::test {

struct TempDir {
  std::filesystem::path path;
  // `name` starts the directory's name; mkdtemp makes it unique, so two
  // TempDirs (or two test processes) never share one.
  explicit TempDir(const std::string& name) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (name + "-XXXXXX")).string();
    if (mkdtemp(tmpl.data()) == nullptr) {
      throw std::runtime_error("mkdtemp failed for " + tmpl);
    }
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

}  // namespace herald::test
