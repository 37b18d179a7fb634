// Replays fuzz inputs without libFuzzer: every regular file under each
// argument (a file or a directory, recursively; a missing directory is
// skipped) is passed to LLVMFuzzerTestOneInput once. Linked into
// fuzz_<name>_replay, which ctest runs in every build, so the seed corpus and
// every saved crash input stay fixed forever.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int replay(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // A copy in its own allocation, exactly as large as the input, so ASan
  // catches any read past its end.
  std::vector<std::uint8_t> data(bytes.begin(), bytes.end());
  return LLVMFuzzerTestOneInput(data.data(), data.size());
}

}  // namespace

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::size_t count = 0;
  for (int i = 1; i < argc; ++i) {
    fs::path arg(argv[i]);
    if (fs::is_regular_file(arg)) {
      replay(arg);
      ++count;
    } else if (fs::is_directory(arg)) {
      for (const auto& entry : fs::recursive_directory_iterator(arg)) {
        if (!entry.is_regular_file()) continue;
        replay(entry.path());
        ++count;
      }
    }
  }
  std::printf("replayed %zu inputs\n", count);
  if (count == 0) {
    std::fprintf(stderr, "no inputs found: the seed corpus is missing\n");
    return 1;
  }
  return 0;
}
