#include "calibrate/gpu_fit/csv_table.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace llm {
namespace {

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) cells.push_back(cell);
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

}  // namespace

CsvTable CsvTable::read(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open file");
  CsvTable t;
  t.path_ = path;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> cells = split_cells(line);
    if (t.header_.empty()) {
      t.header_ = std::move(cells);
      continue;
    }
    if (cells.size() != t.header_.size()) {
      throw std::invalid_argument(path + ":" + std::to_string(number) + ": " +
                                  std::to_string(cells.size()) + " cells, the header has " +
                                  std::to_string(t.header_.size()));
    }
    t.rows_.push_back(std::move(cells));
    t.line_numbers_.push_back(number);
  }
  if (t.header_.empty()) throw std::invalid_argument(path + ": empty file");
  return t;
}

bool CsvTable::has(const std::string& column) const {
  for (const std::string& h : header_) {
    if (h == column) return true;
  }
  return false;
}

size_t CsvTable::column_index(const std::string& column) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == column) return i;
  }
  throw std::invalid_argument(path_ + ": no column '" + column + "'");
}

const std::string& CsvTable::text(size_t row, const std::string& column) const {
  return rows_.at(row)[column_index(column)];
}

double CsvTable::number(size_t row, const std::string& column) const {
  const std::string& cell = text(row, column);
  char* end = nullptr;
  const double v = std::strtod(cell.c_str(), &end);
  if (cell.empty() || !end || *end != '\0') {
    throw std::invalid_argument(where(row) + ": column '" + column + "': not a number: '" + cell +
                                "'");
  }
  return v;
}

std::string CsvTable::where(size_t row) const {
  return path_ + ":" + std::to_string(line_numbers_.at(row));
}

}  // namespace llm
