// A stand-in for libFuzzer's main() where there is no libFuzzer (GCC builds, the replay
// ctests): runs LLVMFuzzerTestOneInput once over every file named on the command line
// and every regular file in the directories named (not recursive, in name order).
// Arguments starting with '-' are libFuzzer flags and are ignored, so the same command
// line (fuzz_x -runs=0 corpus/x) replays a corpus with either kind of binary. A crash,
// a sanitizer report or an escaping exception ends the run (non-zero exit status) with
// the file's name printed just before.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

int run_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "replay: cannot read %s\n", path.c_str());
        return 1;
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::fprintf(stderr, "replay: %s (%zu bytes)\n", path.c_str(), bytes.size());
    // A heap copy of exactly the input's size, as libFuzzer passes it (never null, even
    // when empty), so that AddressSanitizer sees a read one past the end.
    const std::unique_ptr<std::uint8_t[]> data(new std::uint8_t[bytes.size()]);
    std::copy(bytes.begin(), bytes.end(), data.get());
    LLVMFuzzerTestOneInput(data.get(), bytes.size());
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.empty() || arg[0] == '-') continue;
        std::error_code ec;
        if (fs::is_directory(arg, ec)) {
            std::vector<fs::path> in_dir;
            for (const auto& entry : fs::directory_iterator(arg))
                if (entry.is_regular_file()) in_dir.push_back(entry.path());
            std::sort(in_dir.begin(), in_dir.end());
            files.insert(files.end(), in_dir.begin(), in_dir.end());
        } else if (fs::is_regular_file(arg, ec)) {
            files.emplace_back(arg);
        } else {
            std::fprintf(stderr, "replay: %s is neither a file nor a directory\n", arg.c_str());
            return 2;
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: %s FILE_OR_DIR... (runs the fuzz target once per file)\n", argv[0]);
        return 2;
    }
    int failed = 0;
    for (const fs::path& f : files) failed += run_file(f);
    std::fprintf(stderr, "replay: %zu inputs, %d unreadable\n", files.size(), failed);
    return failed == 0 ? 0 : 1;
}
