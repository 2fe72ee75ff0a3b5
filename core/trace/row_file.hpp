// An append-only CSV file written in whole rows (timeline.csv, stages.csv). Every write is
// checked. The first failure (a full disk, an I/O error) cuts the file back to its last
// complete row, is remembered, and turns later appends into counted drops: the file keeps
// every row written before the fault, never half of one, and the run can say what happened.
// Not thread-safe: its owner serialises appends.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace prooflab::trace {

class RowFile {
 public:
  // Creates (truncates) the file and writes the header line; throws naming the file.
  RowFile(std::filesystem::path path, std::string_view header);
  ~RowFile();
  RowFile(const RowFile&) = delete;
  RowFile& operator=(const RowFile&) = delete;

  // Appends complete rows ("...\n" each); false once the file has failed.
  bool append(std::string_view rows);

  bool failed() const { return !error_.empty(); }
  // "<path>: <reason>; N rows not written" once failed, else empty.
  std::string error() const;

 private:
  std::filesystem::path path_;
  int fd_ = -1;
  off_t good_bytes_ = 0;  // the file's length after its last complete write
  std::string error_;
  std::uint64_t dropped_rows_ = 0;
};

}  // namespace prooflab::trace
