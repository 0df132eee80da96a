// The main of a fuzz target's replay test (`make test`): runs
// LLVMFuzzerTestOneInput once on every file under the folders (or files)
// given, the target's seed corpus and its regression inputs, without
// libFuzzer, so any compiler and any sanitizer build replays them. Fails
// when it found no input at all, so an empty corpus cannot pass.

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size);

namespace {

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::filesystem::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path root(argv[i]);
    std::error_code ec;
    if (std::filesystem::is_regular_file(root, ec)) {
      inputs.push_back(root);
    } else if (std::filesystem::is_directory(root, ec)) {
      for (const auto& e : std::filesystem::recursive_directory_iterator(root))
        if (e.is_regular_file()) inputs.push_back(e.path());
    } else {
      std::fprintf(stderr, "replay: %s: no such file or folder\n", argv[i]);
      return 2;
    }
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "replay: no input under the paths given\n");
    return 1;
  }
  for (const auto& p : inputs) {
    const std::string data = ReadFile(p);
    std::printf("replay: %s (%zu bytes)\n", p.c_str(), data.size());
    std::fflush(stdout);
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(data.data()),
                           data.size());
  }
  std::printf("replay: %zu inputs, no oracle failed\n", inputs.size());
  return 0;
}
