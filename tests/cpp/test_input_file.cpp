// The input layer (io/input_file.hpp) and the atomic writer (io/output_file.hpp): only
// regular files are read unless a stream is allowed, without blocking on a FIFO, every
// read bounded; writes never replace something that is not a regular file.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "libscale/io/error.hpp"
#include "libscale/io/input_file.hpp"
#include "libscale/io/json_io.hpp"
#include "libscale/io/output_file.hpp"

using namespace libscale;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& name) {
    const fs::path d = fs::path(LIBSCALE_TEST_TMPDIR) / ("input_file_" + name);
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ParseError& e) {
        return e.what();
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(InputFile, ReadsARegularFileWhole) {
    const fs::path d = fresh_dir("regular");
    write(d / "a.txt", "hello");
    InputFile f(d / "a.txt", "a text");
    EXPECT_TRUE(f.regular());
    EXPECT_EQ(f.size(), 5u);
    EXPECT_EQ(f.read_all(5), "hello");
}

TEST(InputFile, RefusesWhatIsNotARegularFileByName) {
    const fs::path d = fresh_dir("kinds");
    fs::create_directory(d / "dir");
    ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
    fs::create_symlink(d / "loop2", d / "loop1");
    fs::create_symlink(d / "loop1", d / "loop2");
    write(d / "file", "x");
    const auto open = [](const fs::path& p) { return [p] { InputFile f(p, "a config"); }; };
    EXPECT_NE(message_of(open(d / "dir")).find("is a directory; expected a config"), std::string::npos);
    // Opened without O_NONBLOCK this would wait forever for a writer.
    EXPECT_NE(message_of(open(d / "fifo")).find("is a FIFO (named pipe)"), std::string::npos);
    EXPECT_NE(message_of(open("/dev/zero")).find("is a character device"), std::string::npos);
    EXPECT_NE(message_of(open(d / "loop1")).find("too many levels of symbolic links"), std::string::npos);
    EXPECT_NE(message_of(open(d / "missing")).find("no such file"), std::string::npos);
    EXPECT_NE(message_of(open(d / "file" / "x")).find("not a directory"), std::string::npos);
    EXPECT_NE(message_of(open("")).find("the path is empty"), std::string::npos);
    EXPECT_NE(message_of(open(std::string("a\0b", 3))).find("NUL byte"), std::string::npos);
}

TEST(InputFile, AStreamIsReadOnlyWhenAllowedAndEndsWithoutAWriter) {
    const fs::path d = fresh_dir("stream");
    ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
    InputFile f(d / "fifo", "a trace", /*allow_stream=*/true);
    EXPECT_FALSE(f.regular());
    EXPECT_EQ(f.read_all(1024), "");                                    // no writer: end of file at once (pipe(7))
    EXPECT_THROW(InputFile("/dev/zero", "a trace", true), ParseError);  // a device never
}

TEST(InputFile, EveryReadIsBounded) {
    const fs::path d = fresh_dir("bounded");
    write(d / "big", std::string(1000, 'x'));
    const std::string msg = message_of([&] { (void)read_input_file(d / "big", "a config", 999); });
    EXPECT_NE(msg.find("larger than 999 bytes, the limit for a config"), std::string::npos) << msg;
    EXPECT_EQ(read_input_file(d / "big", "a config", 1000).size(), 1000u);
}

TEST(JsonIo, NumbersPastDoubleAndDeepNestingAreParseErrors) {
    EXPECT_NE(message_of([] { (void)parse_json(R"({"a": 1e999})", "x.json"); }).find("x.json: number overflow"),
              std::string::npos);
    const std::string deep = std::string(300, '[') + std::string(300, ']');
    EXPECT_NE(message_of([&] { (void)parse_json(deep, "x.json"); }).find("nested deeper than 256"), std::string::npos);
    const std::string ok = std::string(200, '[') + std::string(200, ']');
    EXPECT_NO_THROW((void)parse_json(ok, "x.json"));
}

TEST(WriteFileAtomic, RefusesNonRegularTargetsAndWritesThroughLinks) {
    const fs::path d = fresh_dir("write");
    fs::create_directory(d / "dir");
    ASSERT_EQ(::mkfifo((d / "fifo").c_str(), 0600), 0);
    fs::create_symlink("/dev/null", d / "to_null");
    fs::create_symlink(d / "nowhere", d / "dangling");
    for (const fs::path& p : {d / "dir", d / "fifo", fs::path("/dev/null"), d / "to_null", d / "dangling"})
        EXPECT_THROW(write_file_atomic(p, "x"), Error) << p;
    EXPECT_TRUE(fs::is_symlink(d / "to_null"));
    EXPECT_THROW(write_file_atomic("", "x"), Error);

    write(d / "target", "old");
    fs::permissions(d / "target", fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    fs::create_symlink(d / "target", d / "link");
    write_file_atomic(d / "link", "new");
    EXPECT_TRUE(fs::is_symlink(d / "link"));
    EXPECT_EQ(read_input_file(d / "target", "the target", 100), "new");
    EXPECT_EQ(fs::status(d / "target").permissions() & fs::perms::all,
              fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    // Nothing but what was there: no temporary file left beside the target.
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(d)) ++entries;
    EXPECT_EQ(entries, 6u);  // dir, fifo, to_null, dangling, target, link: no .tmp file
}
