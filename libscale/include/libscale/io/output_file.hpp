// The one way the core writes a file (calibrations, measurements, harness reports): all at
// once through a temporary file renamed over the target, so that no reader ever sees half a
// file. The Python layer's counterpart is libscale._files.write_atomic, with the same rules.
#pragma once

#include <filesystem>
#include <string_view>

namespace libscale {

// Writes `content` to `path` atomically:
// - a symbolic link to a regular file is written through (the link stays, its target is
//   replaced); an empty path, a directory, a FIFO, a device, a socket, or a link to one of
//   them or to nothing is refused (libscale::Error), and nothing is written;
// - the temporary file (".NAME.XXXXXX.tmp" beside the target) is flushed to disk, renamed
//   over the target, and the directory synced; on any failure it is removed;
// - SIGINT, SIGTERM, SIGHUP and SIGQUIT are held back (pthread_sigmask) while the
//   temporary file exists, so an interrupt lands after the rename or the clean-up, never
//   between (SIGKILL cannot be held: a killed writer can leave the hidden .tmp file);
// - an existing target keeps its permission bits; a new one gets 0644.
void write_file_atomic(const std::filesystem::path& path, std::string_view content);

}  // namespace libscale
