// A small CSV table reader for the published profiles (comma-separated, a header row, no quoted
// commas): cells by column name, numbers parsed with the file and line in every error.
// Thread-safety: a CsvTable is a plain value; read_csv_table only reads its file.
#pragma once

#include <string>
#include <vector>

namespace llm {

class CsvTable {
 public:
  // Throws std::invalid_argument "FILE: ..." for an unreadable file or a row whose cell count
  // differs from the header's.
  static CsvTable read(const std::string& path);

  size_t rows() const { return rows_.size(); }
  bool has(const std::string& column) const;
  // The cell as text / as a number. Throws "FILE:LINE: column 'C': ..." when the column is
  // missing or the cell is not a number.
  const std::string& text(size_t row, const std::string& column) const;
  double number(size_t row, const std::string& column) const;
  // "FILE:LINE" of a row, for sample sources.
  std::string where(size_t row) const;

 private:
  size_t column_index(const std::string& column) const;

  std::string path_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> line_numbers_;
};

}  // namespace llm
