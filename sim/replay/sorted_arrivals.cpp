#include "sim/replay/sorted_arrivals.h"

#include <algorithm>
#include <cstring>
#include <queue>
#include <tuple>
#include <utility>

namespace llm {
namespace {

constexpr size_t kSortReadBuffer = 1 << 16;   // bytes read from a run at a time
constexpr size_t kSortWriteBuffer = 1 << 18;  // bytes of merged records written at a time

template <typename T>
void put_raw(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
void put_request_vector(std::string& out, const std::vector<T>& v) {
  put_raw(out, static_cast<uint64_t>(v.size()));
  out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

void put_request_string(std::string& out, const std::string& s) {
  put_raw(out, static_cast<uint64_t>(s.size()));
  out.append(s);
}

// One request as bytes (this process reads them back: native byte order).
void encode_request(const TraceRequest& r, std::string& out) {
  put_request_string(out, r.id);
  put_raw(out, r.arrival_ns);
  put_raw(out, r.prompt_len);
  put_request_vector(out, r.prompt_tokens);
  put_raw(out, r.output_len);
  put_request_vector(out, r.prefix_hash_ids);
  put_raw(out, r.hash_block_size);
  put_raw(out, r.n);
  put_raw(out, r.max_tokens);
  put_raw(out, r.priority);
  put_request_string(out, r.cache_salt);
}

// The requests of one range of the file, decoded one at a time.
class RequestRunReader {
 public:
  RequestRunReader(const SpillFile& file, uint64_t offset, uint64_t bytes, size_t count)
      : file_(&file), next_(offset), left_(bytes), count_(count) {}

  // The next request into `r`; false after the last.
  bool read(TraceRequest& r) {
    if (count_ == 0) return false;
    --count_;
    r.id = get_string();
    get(r.arrival_ns);
    get(r.prompt_len);
    get_vector(r.prompt_tokens);
    get(r.output_len);
    get_vector(r.prefix_hash_ids);
    get(r.hash_block_size);
    get(r.n);
    get(r.max_tokens);
    get(r.priority);
    r.cache_salt = get_string();
    return true;
  }

 private:
  void bytes(void* data, size_t size) {
    char* p = static_cast<char*>(data);
    while (size > 0) {
      if (at_ == buf_.size()) refill();
      const size_t n = std::min(size, buf_.size() - at_);
      std::memcpy(p, buf_.data() + at_, n);
      at_ += n;
      p += n;
      size -= n;
    }
  }
  void refill() {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(left_, kSortReadBuffer));
    buf_.resize(n);
    file_->read(next_, buf_.data(), n);
    next_ += n;
    left_ -= n;
    at_ = 0;
  }
  template <typename T>
  void get(T& v) {
    bytes(&v, sizeof v);
  }
  template <typename T>
  void get_vector(std::vector<T>& v) {
    uint64_t n = 0;
    get(n);
    v.resize(n);
    bytes(v.data(), n * sizeof(T));
  }
  std::string get_string() {
    uint64_t n = 0;
    get(n);
    std::string s(n, '\0');
    bytes(s.data(), n);
    return s;
  }

  const SpillFile* file_;
  uint64_t next_, left_;
  size_t count_;
  std::vector<char> buf_;
  size_t at_ = 0;
};

// A pass over the merged range.
class SortedFileStream final : public RequestStream {
 public:
  SortedFileStream(std::shared_ptr<const SpillFile> file, uint64_t offset, uint64_t bytes,
                   size_t count)
      : file_(std::move(file)), reader_(*file_, offset, bytes, count) {}
  const TraceRequest* next() override { return reader_.read(current_) ? &current_ : nullptr; }

 private:
  std::shared_ptr<const SpillFile> file_;
  RequestRunReader reader_;
  TraceRequest current_;
};

bool by_arrival(const TraceRequest& a, const TraceRequest& b) {
  return a.arrival_ns < b.arrival_ns;
}

}  // namespace

ArrivalSorter::ArrivalSorter(size_t in_memory, std::string folder)
    : in_memory_(std::max<size_t>(in_memory, 1)), folder_(std::move(folder)) {}

void ArrivalSorter::add(const TraceRequest& r) {
  batch_.push_back(r);
  ++count_;
  if (batch_.size() >= in_memory_) spill();
}

void ArrivalSorter::spill() {
  if (batch_.empty()) return;
  std::stable_sort(batch_.begin(), batch_.end(), by_arrival);
  if (!file_) {
    file_ = SpillFile::create(folder_, "the requests --sort-arrivals sorts",
                              "it keeps about the trace's size there, twice while it merges");
  }
  Run run;
  run.offset = file_->size();
  run.count = batch_.size();
  std::string bytes;
  for (const TraceRequest& r : batch_) {
    encode_request(r, bytes);
    if (bytes.size() >= kSortWriteBuffer) {
      file_->append(bytes.data(), bytes.size());
      run.bytes += bytes.size();
      bytes.clear();
    }
  }
  file_->append(bytes.data(), bytes.size());
  run.bytes += bytes.size();
  runs_.push_back(run);
  batch_.clear();
}

void ArrivalSorter::finish() {
  if (runs_.empty()) {
    std::stable_sort(batch_.begin(), batch_.end(), by_arrival);
    sorted_.requests = std::move(batch_);
    batch_ = {};
    return;
  }
  spill();
  std::vector<RequestRunReader> readers;
  std::vector<TraceRequest> heads(runs_.size());
  readers.reserve(runs_.size());
  // The smallest (arrival, run) first: ties keep the runs' order, and a run is in read order.
  using Head = std::pair<int64_t, size_t>;
  std::priority_queue<Head, std::vector<Head>, std::greater<>> order;
  for (size_t i = 0; i < runs_.size(); ++i) {
    readers.emplace_back(*file_, runs_[i].offset, runs_[i].bytes, runs_[i].count);
    if (readers[i].read(heads[i])) order.emplace(heads[i].arrival_ns, i);
  }
  merged_ = Run{};
  merged_.offset = file_->size();
  std::string bytes;
  while (!order.empty()) {
    const size_t i = order.top().second;
    order.pop();
    encode_request(heads[i], bytes);
    ++merged_.count;
    if (bytes.size() >= kSortWriteBuffer) {
      file_->append(bytes.data(), bytes.size());
      merged_.bytes += bytes.size();
      bytes.clear();
    }
    if (readers[i].read(heads[i])) order.emplace(heads[i].arrival_ns, i);
  }
  file_->append(bytes.data(), bytes.size());
  merged_.bytes += bytes.size();
  for (const Run& r : runs_) file_->release(r.offset, r.bytes);
}

std::unique_ptr<RequestStream> ArrivalSorter::open() const {
  if (runs_.empty()) return std::make_unique<TraceRequestStream>(sorted_);
  return std::make_unique<SortedFileStream>(file_, merged_.offset, merged_.bytes, merged_.count);
}

}  // namespace llm
